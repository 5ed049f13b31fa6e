import { useNavigate } from 'react-router';
import { DeviceCheck } from '#app/device/DeviceCheck.tsx';

export function meta() {
  return [{ title: '板书 · 设备检测 / Device check' }];
}

/** /profile/device: the device-check wizard (spec 01 §2). */
export default function DevicePage() {
  const navigate = useNavigate();
  return <DeviceCheck onClose={() => void navigate('/profile')} />;
}
