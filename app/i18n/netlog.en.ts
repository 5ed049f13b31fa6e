import type { netlogZh } from './netlog.zh.ts';

/** Issue 27: the 'network exception' message of /api calls and the operators' client-event log (ADR 102); English. */
export const netlogEn: typeof netlogZh = {
  network: {
    title: 'Network exception',
    text: 'The request got no answer. Check your connection and try again.',
    retry: 'Retry',
    retrying: 'Retrying…',
    close: 'Close',
  },
  logs: {
    title: 'Client logs',
    hint: 'Events the browsers of students and teachers report: join information, device checks, socket drops and reconnects, errors, and the audio and video minutes on leaving.',
    room: 'Room number',
    person: 'User id',
    event: 'Event',
    filter: 'Filter',
    clear: 'Clear filter',
    time: 'Time',
    details: 'Event details',
    address: 'Address',
    none: 'No logs match',
    newer: 'Newer',
    older: 'Older',
    page: 'Page {{n}}',
    anyone: 'Visitor',
  },
};
