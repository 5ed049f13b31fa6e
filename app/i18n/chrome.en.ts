import type { chromeZh } from './chrome.zh.ts';

/** The classroom's chrome (ADR 090) in English. */
export const chromeEn: typeof chromeZh = {
  leaveShort: 'Leave',
  moreLabel: 'More actions',
  language: 'Language: 中文',
  leave: {
    title: 'Leave the classroom',
    creatorText: 'You can leave on your own while the students carry on, or end the class for everyone.',
    memberText: 'Leave the classroom? You can come back later with the classroom number.',
    leaveOnly: 'Leave the classroom',
    leaveOnlyHint: 'Others continue',
    endForAll: 'End class for everyone',
    endForAllHint: 'Everyone leaves and the room closes',
    confirmLeave: 'Leave',
  },
  endClass: {
    title: 'End the class?',
    text: 'Everyone leaves the classroom and it closes for good.',
  },
  kick: {
    title: 'Remove {{name}}?',
    text: '{{name}} will be removed from the class and cannot rejoin this class.',
    confirm: 'Remove',
  },
  defaultName: 'Teacher {{digits}}',
};
