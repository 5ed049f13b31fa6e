import type { SlideViewMessages } from './slideview.zh.ts';

/** The slide view of a room (`/ppt/{id}`, `/ppt/{id}/{uid}`, ADR 093); English. */
export const slideViewEn: SlideViewMessages = {
  pageTitle: 'Slides · classroom {{n}}',
  title: "{{name}}'s classroom",
  titleNoName: 'Classroom {{n}}',
  viewOnly: 'View only',
  viewOnlyHint: "You are watching this classroom's slides; only the teacher writes and turns pages",
  loading: 'Opening the slides…',
  failed: 'The slides cannot be opened right now',
  retry: 'Try again',
  closed: 'This class has ended',
  page: 'Page {{n}} of {{total}}',
  boardPage: 'Whiteboard page {{n}}',
  noSlides: 'The teacher has not opened slides yet: showing the whiteboard',
  status: {
    live: 'Connected',
    connecting: 'Connecting',
    offline: 'Connection lost, reconnecting',
    failed: 'Could not connect',
  },
  tools: {
    label: 'Writing tools',
    pen: 'Pen',
    eraser: 'Eraser',
    prev: 'Previous page',
    next: 'Next page',
  },
  turnFailed: 'The page could not be turned',
  backToClass: 'Enter the classroom',
};
