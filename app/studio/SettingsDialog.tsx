/**
 * The studio's device settings: camera and microphone pickers, remembered as
 * `record-device-configure` (docs/product/02-live-classroom.md §3). Not while the screen is shared
 * (the caller refuses it with a toast).
 */
import { useEffect, useId, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Button } from '#app/components/Button.tsx';
import { Dialog } from '#app/components/Dialog.tsx';
import { listDevices, type DeviceLists, type StudioDeviceConfig } from './devices.ts';

export interface SettingsDialogProps {
  config: StudioDeviceConfig;
  /** The devices in use now (their ids are the pickers' first choice when nothing is stored). */
  inUse: { videoDeviceId?: string | undefined; audioDeviceId?: string | undefined };
  onSave: (config: StudioDeviceConfig) => Promise<void>;
  onClose: () => void;
}

export function SettingsDialog({ config, inUse, onSave, onClose }: SettingsDialogProps) {
  const { t } = useTranslation();
  const cameraId = useId();
  const micId = useId();
  const [lists, setLists] = useState<DeviceLists | null>(null);
  const [video, setVideo] = useState(config.videoDeviceId ?? inUse.videoDeviceId ?? '');
  const [audio, setAudio] = useState(config.audioDeviceId ?? inUse.audioDeviceId ?? '');
  const [busy, setBusy] = useState(false);

  useEffect(() => {
    let current = true;
    void listDevices()
      .catch(() => ({ cameras: [], mics: [] }))
      .then((found) => current && setLists(found));
    return () => {
      current = false;
    };
  }, []);

  const picker = (
    id: string,
    label: string,
    value: string,
    set: (v: string) => void,
    devices: MediaDeviceInfo[] | undefined,
    testId: string,
  ) => (
    <div className="field">
      <label htmlFor={id}>{label}</label>
      <select id={id} value={value} onChange={(e) => set(e.currentTarget.value)} disabled={!lists} data-testid={testId}>
        <option value="">{t('studio.settings.systemDefault')}</option>
        {(devices ?? []).map((d, i) => (
          <option key={d.deviceId} value={d.deviceId}>
            {d.label || `${label} ${i + 1}`}
          </option>
        ))}
      </select>
      {lists && devices?.length === 0 ? <p className="studio-save__hint">{t('studio.settings.none')}</p> : null}
    </div>
  );

  return (
    <Dialog
      title={t('studio.settings.title')}
      onClose={onClose}
      actions={
        <>
          <Button variant="ghost" onClick={onClose}>
            {t('studio.settings.cancel')}
          </Button>
          <Button
            loading={busy}
            data-testid="studio-settings-save"
            onClick={() => {
              setBusy(true);
              const next: StudioDeviceConfig = {};
              if (video) next.videoDeviceId = video;
              if (audio) next.audioDeviceId = audio;
              void onSave(next).finally(() => {
                setBusy(false);
                onClose();
              });
            }}
          >
            {t('studio.settings.save')}
          </Button>
        </>
      }
    >
      <div className="stack">
        {picker(cameraId, t('studio.settings.camera'), video, setVideo, lists?.cameras, 'studio-settings-camera')}
        {picker(micId, t('studio.settings.mic'), audio, setAudio, lists?.mics, 'studio-settings-mic')}
      </div>
    </Dialog>
  );
}
