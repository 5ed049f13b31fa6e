/**
 * Watching the devices in class (docs/product/02-live-classroom.md §4): the device list after it
 * settles (devicechange comes in bursts), and the camera and microphone permissions changing.
 * The media client decides what each change means.
 */
const DEVICE_CHANGE_SETTLE_MS = 1000;

export interface DeviceWatch {
  /** The device list, once it settled after a change. */
  devices: (list: Array<Pick<MediaDeviceInfo, 'deviceId' | 'kind'>>) => void;
  /** A permission changed while in class. */
  permission: (source: 'mic' | 'camera', state: PermissionState) => void;
}

/** Starts watching; returns the undo. Nothing happens where the browser has no mediaDevices. */
export function watchDevices(on: DeviceWatch): () => void {
  const md = typeof navigator === 'undefined' ? undefined : navigator.mediaDevices;
  if (!md) return () => undefined;
  let timer: ReturnType<typeof setTimeout> | null = null;
  let detached = false;
  const onChange = () => {
    if (timer) clearTimeout(timer);
    timer = setTimeout(() => {
      void md
        .enumerateDevices()
        .then((list) => on.devices(list))
        .catch(() => undefined);
    }, DEVICE_CHANGE_SETTLE_MS);
  };
  md.addEventListener('devicechange', onChange);
  const undoPermissions: Array<() => void> = [];
  const perms = typeof navigator.permissions?.query === 'function' ? navigator.permissions : null;
  for (const [name, source] of [
    ['camera', 'camera'],
    ['microphone', 'mic'],
  ] as const) {
    void perms
      ?.query({ name: name })
      .then((status) => {
        if (detached) return;
        const onPerm = () => on.permission(source, status.state);
        status.addEventListener('change', onPerm);
        undoPermissions.push(() => status.removeEventListener('change', onPerm));
      })
      .catch(() => undefined);
  }
  return () => {
    detached = true;
    if (timer) clearTimeout(timer);
    md.removeEventListener('devicechange', onChange);
    for (const undo of undoPermissions) undo();
  };
}
