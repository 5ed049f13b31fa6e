import type { JourneysMessages } from './journeys.zh.ts';

/** A new person's ways in and out (ADR 098): the number box without an account, the visitor's front door, the left page; English. */
export const journeysEn: JourneysMessages = {
  join: {
    title: 'Join a class with its number',
    text: 'Students need no account: enter the classroom number your teacher gave you, then your name.',
    label: 'Classroom number',
    placeholder: 'e.g. 386201',
    submit: 'Join class',
    invalid: 'Please enter a valid classroom number',
  },
  front: {
    title: 'Join a class',
    lead: 'Enter the classroom number your teacher gave you. No sign-up needed.',
    teacherTitle: 'I am a teacher',
    teacherText: 'Sign in with your phone number to create classrooms, teach and record.',
    signIn: 'Teacher sign-in',
    about: 'About Banshu',
  },
  login: {
    student: 'I am a student: join with a classroom number',
    about: 'About Banshu',
  },
  left: {
    title: 'You left the class',
    room: 'Classroom {{room}}',
    text: 'While the class is still on, you can come back to this classroom at any time.',
    rejoin: 'Rejoin the class',
    home: 'Home',
  },
};
