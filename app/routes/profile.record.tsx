import { RecordLibrary } from '#app/recordings/RecordLibrary.tsx';

export function meta() {
  return [{ title: '板书 · 我的录制 / My recordings' }];
}

/** /profile/record: the recordings library (the parent's middleware lets teachers only in). */
export default function ProfileRecord() {
  return <RecordLibrary />;
}
