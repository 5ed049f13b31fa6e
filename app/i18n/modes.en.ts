import type { ModesMessages } from './modes.zh.ts';

/** Class modes, the capability explanations and the audio class's clock (issue 27, ADR 099); English. */
export const modesEn: ModesMessages = {
  badgeLabel: 'Class mode: {{mode}}',
  discuss: 'Discussion',
  lecture: 'Lecture',
  discussHint: 'Discussion: students may turn their microphones on and speak',
  lectureHint: 'Lecture: only the teacher and the students on stage may speak',
  nowLecture: 'The teacher switched to lecture mode: students’ microphones are closed',
  nowDiscuss: 'The teacher switched to discussion mode: you may turn your microphone on',
  micClosed: 'Lecture: microphone closed',
  micClosedWhy:
    'In lecture mode only the teacher and the students on stage may speak. You can turn it on once the teacher switches to discussion or invites you on stage.',
  clock: {
    label: 'Time left in this class',
    warn5: 'This audio class closes in 5 minutes',
    warn1: 'This audio class closes in 1 minute',
    ended: 'The class’s time is up: the classroom closed by itself',
  },
};
