/**
 * What the classroom offers this person, from the one rule the server decides with
 * (core/rooms/capabilities.ts, ADR 099): the microphone button (hidden where the room type never
 * lets them speak, shown closed while lecture mode holds it), the camera button, the screen share
 * and the 10-minute trial. core/rooms/capabilities.test.ts checks these against the server's
 * decisions, room type by role.
 */
import { can, type CapabilityInput } from '#core/rooms/capabilities.ts';

export interface OfferedControls {
  /** 'hidden': no button; 'closed': shown, refused with the reason (lecture mode); 'open': works. */
  mic: 'hidden' | 'closed' | 'open';
  camera: boolean;
  screen: boolean;
  trial: boolean;
}

export function offeredControls(i: CapabilityInput): OfferedControls {
  const mic = can('mic', i) ? 'open' : can('mic', { ...i, mode: 'discuss' }) ? 'closed' : 'hidden';
  return { mic, camera: can('camera', i), screen: can('screen', i), trial: can('trial', i) };
}
