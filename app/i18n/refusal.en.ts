import type { RefusalMessages } from './refusal.zh.ts';

/** The refusal page /refused/{kind} and the phone banner (ADR 091); English. */
export const refusalEn: RefusalMessages = {
  pageTitle: 'Cannot enter the classroom',
  roomLabel: 'Classroom {{room}}',
  removed: {
    title: 'The teacher removed you from this class',
    text: 'You cannot enter this classroom again.',
    next: 'If this was a mistake, contact your teacher and ask for a new classroom link.',
  },
  full: {
    title: 'This classroom is full',
    text: 'All seats in this classroom are taken.',
    next: 'Try again in a few minutes, or ask your teacher to upgrade the class for more seats.',
    nextNoUpgrade: 'Try again in a few minutes, or ask your teacher for a classroom with more seats.',
  },
  closed: {
    title: 'This class has ended',
    text: 'The teacher ended the class in this classroom.',
    next: 'Ask your teacher for the link to the next class.',
  },
  'time-up': {
    title: "This class's time ran out",
    text: 'An audio class has a set length; the classroom closed by itself when its time was up. The teacher did not end it.',
    next: 'To go on, ask your teacher to create a new classroom and send you its link.',
  },
  'not-found': {
    title: 'Classroom not found',
    text: 'This classroom number does not exist, or the class has ended.',
    next: 'Check the number, or ask your teacher to send the link again.',
  },
  'no-permission': {
    title: 'This link cannot open the classroom',
    text: 'The link is incomplete or was not meant for you.',
    next: 'Open the link your teacher sent you exactly as it is. If you are the teacher of this class, sign in first.',
  },
  'too-many': {
    title: 'Too many attempts',
    text: 'There were too many attempts to enter a classroom in a short time.',
    next: 'Wait a minute, then try again.',
  },
  unavailable: {
    title: 'The classroom is not available right now',
    text: 'Something went wrong while entering the classroom.',
    next: 'Try again in a moment; if it keeps happening, contact your teacher.',
  },
  tryAgain: 'Try again',
  signIn: 'Teacher sign-in',
  home: 'Home page',
  joinOther: 'Join another classroom',
  phoneBrowser: {
    ios: 'On an iPhone or iPad, open the classroom link from your teacher in Safari to join.',
    android: 'On an Android phone or tablet, open the classroom link from your teacher in Chrome to join.',
  },
  banner: {
    text: 'You can also take classes in the Banshu app.',
    download: 'Get the app',
    dismiss: 'Close the app download hint',
  },
};
