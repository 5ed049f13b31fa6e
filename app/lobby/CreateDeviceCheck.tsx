/**
 * 'Create classroom' and the devices: one device step, in the room (ADR 089). The classroom's
 * pre-join has the camera preview, the microphone level, the switches and the pickers, for the
 * creator as for everyone, so create goes straight to the room-type picker; the full four-step
 * check stays at /profile/device. (Before, the lobby ran that wizard in a dialog first, and the
 * room then asked nothing: two different device steps for the teacher and none for the students.)
 */
import type { ReactNode } from 'react';

/** `start()` goes straight to `onReady`; `dialog` is kept for the lobby's layout and stays empty. */
export function useCreateDeviceCheck(onReady: () => void): { start: () => void; dialog: ReactNode } {
  return { start: onReady, dialog: null };
}
