import type { PrejoinMessages } from './prejoin.zh.ts';

/** The pre-join screen (ADR 089); English. */
export const prejoinEn: PrejoinMessages = {
  title: 'Ready to join?',
  room: 'Classroom {{n}}',
  audienceTitle: 'Join the large class',
  audienceText:
    'You join as audience: you can watch, listen and chat. Your microphone and camera are used only when the teacher invites you to the mic.',
  preview: 'Camera preview',
  voiceOnly: 'This class uses sound only, no camera',
  camIsOff: 'Camera is off',
  camStarting: 'Starting camera…',
  camOff: 'Turn camera off',
  camOn: 'Turn camera on',
  micOff: 'Mute microphone',
  micOn: 'Unmute microphone',
  micLevel: 'Microphone level',
  micMuted: 'Microphone muted',
  devices: 'Devices',
  camera: 'Camera',
  mic: 'Microphone',
  speaker: 'Speaker',
  join: 'Join now',
  joinWithout: 'Join without devices',
  keys: 'Press Enter to join',
  back: 'Back',
  remembered: 'This browser remembers these choices for next time.',
  problem: {
    denied:
      'The browser is blocking the camera or microphone for this page. Click the icon at the left of the address bar, set Camera and Microphone to Allow, then reload. You can also join now to watch and listen.',
    noDevices: 'No camera or microphone was found. Connect one and reload this page, or join now to watch and listen.',
    noWebcam: 'No camera was found. You can still join with your microphone, or connect a camera and reload.',
    noMicrophone: 'No microphone was found. You can still join, but others will not hear you; connect one and reload.',
    occupied: 'Another program is using the camera or microphone. Close it and reload this page, or join without it.',
    unsupported:
      'This browser or connection cannot use a camera or microphone (it needs https and a current browser). You can still join to watch and listen.',
    other: 'The camera or microphone could not start. Reload to try again, or join without it.',
  },
};
