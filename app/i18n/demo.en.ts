import type { DemoMessages } from './demo.zh.ts';

/** Demo rooms (ADR 092): /createDemo, /demo/{id}, and the links to them; English. */
export const demoEn: DemoMessages = {
  tryDemo: 'Try a demo classroom',
  tryDemoShort: 'Try a demo',
  create: {
    pageTitle: 'Try a demo classroom',
    title: 'Try Banshu first',
    lead: 'No account needed: get a real classroom of your own right away, with the board, a sample deck, chat and your own camera preview.',
    point1: 'Write on the sample deck and turn its pages',
    point2: 'Send the link to a friend and draw on the board together',
    point3: 'The demo ends by itself after {{hours}} hours and uses no credits',
    start: 'Start the demo',
    starting: 'Preparing your demo classroom…',
    failed: 'The demo classroom could not be made, please try again',
    signIn: 'Have an account? Sign in to create a real classroom',
  },
  room: {
    badge: 'Demo — ends at {{time}}',
    badgeLabel: 'Demo classroom, ends at {{time}}',
    makeYourOwn: 'Make your own classroom',
  },
  name: {
    title: 'Join demo classroom {{n}}',
    lead: 'This is a demo classroom: join without an account, and write on the board.',
  },
  ended: {
    pageTitle: 'The demo has ended',
    title: 'This demo classroom has ended',
    text: 'The time of demo classroom {{n}} is up and it was closed.',
    again: 'Start a new demo',
    signIn: 'Sign in to create a real classroom',
  },
};
