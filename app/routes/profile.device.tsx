import { useNavigate } from 'react-router';
import type { Route } from './+types/profile.device.ts';
import { appContext } from '#app/context.ts';
import { DeviceCheck } from '#app/device/DeviceCheck.tsx';
import { NetworkCheck } from '#app/device/NetworkCheck.tsx';

/** The media node the network check probes: the one a new room would be placed on. */
export async function loader({ context }: Route.LoaderArgs) {
  const { services, site } = context.get(appContext);
  const node = await services.media?.probeNode().catch(() => null);
  return { mediaUrl: node?.url ?? site.publicUrl };
}

export function meta() {
  return [{ title: '板书 · 设备检测 / Device check' }];
}

/** /profile/device: the device-check wizard and the network check (docs/product/01-account-and-lobby.md §2). */
export default function DevicePage({ loaderData }: Route.ComponentProps) {
  const navigate = useNavigate();
  return (
    <div className="stack">
      <DeviceCheck onClose={() => void navigate('/profile')} />
      <NetworkCheck mediaUrl={loaderData.mediaUrl} />
    </div>
  );
}
