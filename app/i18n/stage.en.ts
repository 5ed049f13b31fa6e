import type { StageMessages } from './stage.zh.ts';

/** The classroom stage (issue 16, ADR 088): layouts, tile tools, the board's locked badge; English. */
export const stageEn: StageMessages = {
  layout: 'Video layout',
  grid: 'Grid view',
  speaker: 'Speaker view',
  pin: 'Pin {{name}}',
  unpin: 'Unpin {{name}}',
  pinned: 'Pinned',
  enlarge: 'Fill the stage',
  restore: 'Restore size',
  pip: 'Picture in picture',
  tileTools: 'Video options for {{name}}',
  filmstrip: 'Participant videos',
  locked: 'View only',
  lockedHint: 'You can draw once the teacher opens the board to you',
};
