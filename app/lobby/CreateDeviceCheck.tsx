/**
 * 'Create classroom' goes through a device check first (docs/product/01-account-and-lobby.md §2, the lobby's landing view):
 * the four-step wizard in a dialog that can always be skipped. A check passed (every device
 * normal) is remembered for this browser session; a computer without any camera or microphone
 * goes straight on, since a teacher may teach with the board only. Nothing here ever blocks
 * creating the class.
 */
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Button } from '#app/components/Button.tsx';
import { Dialog } from '#app/components/Dialog.tsx';
import { DeviceCheck, type DeviceResult } from '#app/device/DeviceCheck.tsx';

/** Session storage key: the device check passed in this browser session. */
export const DEVICE_CHECKED_KEY = 'device-checked';

function passedThisSession(): boolean {
  try {
    return sessionStorage.getItem(DEVICE_CHECKED_KEY) === '1';
  } catch {
    return false;
  }
}

/** Whether this computer has a camera or a microphone at all (false when the browser cannot tell us). */
async function hasAnyDevice(): Promise<boolean> {
  if (!navigator.mediaDevices?.enumerateDevices) return false;
  const all = await navigator.mediaDevices.enumerateDevices().catch(() => []);
  return all.some((d) => d.kind === 'videoinput' || d.kind === 'audioinput');
}

/** `start()` opens the check when one is due, otherwise goes straight to `onReady`. */
export function useCreateDeviceCheck(onReady: () => void) {
  const { t } = useTranslation();
  const [open, setOpen] = useState(false);

  const start = async () => {
    if (passedThisSession() || !(await hasAnyDevice())) return onReady();
    setOpen(true);
  };
  const finish = (result: DeviceResult | null) => {
    if (result && result.camera && result.mic && result.speaker) {
      try {
        sessionStorage.setItem(DEVICE_CHECKED_KEY, '1');
      } catch {
        // Private modes may refuse storage: the check is then offered again next time.
      }
    }
    setOpen(false);
    onReady();
  };

  const dialog = open ? (
    <Dialog
      title={t('lobby.deviceCheckTitle')}
      className="dialog--device-check"
      onClose={() => finish(null)}
      actions={
        <Button variant="ghost" onClick={() => finish(null)} data-testid="device-check-skip">
          {t('lobby.deviceCheckSkip')}
        </Button>
      }
    >
      <p className="muted">{t('lobby.deviceCheckText')}</p>
      <DeviceCheck onClose={(result) => finish(result)} />
    </Dialog>
  ) : null;

  return { start, dialog };
}
