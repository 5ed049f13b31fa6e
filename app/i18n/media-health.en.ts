import type { MediaHealthMessages } from './media-health.zh.ts';

/** The classroom's media health (ADR 101): blocked playback, the device-exception view, a microphone that sends nothing; English. */
export const mediaHealthEn: MediaHealthMessages = {
  playback: {
    title: 'The browser paused the sound and video',
    text: 'The browser needs one click from you before it plays the class’s sound.',
    button: 'Click to start sound and video',
  },
  device: {
    heading: 'Device problem',
    what: 'What happened',
    todo: 'What to do',
    retry: 'Try again',
    choose: 'Choose a device',
    close: 'Not now',
    helpTitle: 'How to allow the camera and microphone',
    helpSteps: {
      one: 'Click the lock or camera icon at the left of the address bar.',
      two: 'Set Camera and Microphone to Allow.',
      three:
        'The devices open again here by themselves once allowed; if not, press Try again. No reload is needed and you stay in the class.',
    },
    source: { mic: 'microphone', camera: 'camera', both: 'camera and microphone' },
    title: {
      noDevices: 'No camera or microphone was found',
      noWebcam: 'No camera was found',
      noMicrophone: 'No microphone was found',
      occupied: 'Another program is using the {{device}}',
      denied: 'The browser blocks the {{device}}',
      resolution: 'The camera does not support the current resolution',
      unplugged: 'The {{device}} was disconnected',
      deviceUpdate: 'The chosen {{device}} is gone',
      deviceError: 'The {{device}} could not start',
    },
    text: {
      noDevices: 'Connect a camera or microphone, then press Try again. You can keep watching and listening without one.',
      noWebcam: 'Connect a camera, then press Try again. You can still take part with your microphone.',
      noMicrophone: 'Connect a microphone, then press Try again. Until then the others cannot hear you.',
      occupied:
        'Close the other program using the {{device}} (a meeting app, another browser tab), then press Try again, or choose another device.',
      denied: 'Allow it with the steps below and the devices open again by themselves.',
      resolution: 'Banshu tried 640x360 and 640x480 and this camera opened at neither. Choose another camera and try again.',
      unplugged:
        'It is muted for everyone, so nobody sees a frozen picture or hears noise. Plug it back in or choose another device, then press Try again.',
      deviceUpdate: 'It is muted for everyone. Choose another device, or plug it back in and press Try again.',
      deviceError: 'Press Try again. If it keeps failing, reconnect the device or restart the browser.',
    },
  },
  silent: {
    me: 'Your microphone sends no sound, check it',
    meHint:
      'No sound has arrived from {{device}} for 10 seconds. Check that it is connected and not muted by a switch on the device, or pick another microphone under Devices, then press Try again.',
    thisMic: 'the current microphone',
    teacher: 'No sound arrives from {{name}}',
    badge: 'No sound',
    level: 'Microphone level of {{name}}',
    retry: 'Try again',
    dismiss: 'OK',
  },
};
