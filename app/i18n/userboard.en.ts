import type { UserBoardMessages } from './userboard.zh.ts';

/** The board of a named user (`/wb/{id}/{uid}`, `/imwb/{id}/{uid}`, ADR 094); English. */
export const userBoardEn: UserBoardMessages = {
  phone: {
    label: 'Send a picture from your phone',
    text: 'Take a photo or pick one on your phone and it lands on your board.',
    show: 'Show QR code',
    hide: 'Hide',
    qrAlt: 'QR code for sending a picture from your phone',
    link: 'Or open this link on your phone:',
    failed: 'The QR code is not available yet: enter the class first, and make sure you may write on the board',
    onlyDrawer: 'Only someone who may write on the board can send pictures from a phone',
  },
  view: {
    title: 'Board · classroom {{n}}',
    readOnly: "You are watching {{name}}'s board",
    readOnlyAnon: "You are watching this room's board",
    loading: 'Opening the board…',
    failed: 'The board cannot be opened right now',
    retry: 'Try again',
    closed: 'This class has ended',
  },
};
