/**
 * A visitor naming themself and joining a room without an account (`touristJoinRoom`): the name
 * rule with its message in both languages, a room refusal opening the refusal page (ADR 091),
 * the per-room name flag, then the room's address with the join's answer. Used by the name step
 * `/userName/{id}` and by the demo room's pre-join (ADR 092).
 */
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useNavigate } from 'react-router';
import type { JoinedState } from '#app/classroom/joined.ts';
import { useLang } from '#app/components/lang.tsx';
import type { ApiData } from '#core/contracts/api.ts';
import { api, isOk, NETWORK_ERROR } from '#app/lib/api.ts';
import { useRequestLock } from '#app/lib/lock.ts';
import { codeMessage } from '#app/lib/messages.ts';
import { checkName } from '#app/lib/names.ts';
import { isRoomRefusal, refusalPath } from '#app/lib/refusal.ts';
import { safeSet, TOURIST_NAME_KEY, updateKey } from '#app/lib/storage.ts';
import { toast } from '#app/lib/toast.ts';

type Joined = ApiData<'touristJoinRoom'>;

export function useVisitorJoin(roomNumber: string, target: (joined: Joined) => string) {
  const { t } = useTranslation();
  const { lang } = useLang();
  const navigate = useNavigate();
  const { busy, run } = useRequestLock();
  const [error, setError] = useState<string | null>(null);

  const join = (name: string) => {
    const check = checkName(name);
    if (!check.ok) {
      const text = check.reason === 'empty' ? t('userName.empty') : t('userName.invalid');
      setError(text);
      toast.error(text);
      return;
    }
    void run(async (requestId) => {
      const envelope = await api('touristJoinRoom', { roomNumber, userName: check.name }, { requestId, retries: 1 });
      if (!isOk(envelope)) {
        if (isRoomRefusal(envelope.code)) void navigate(refusalPath(envelope.code, roomNumber, envelope.reason), { replace: true });
        else if (envelope.code !== NETWORK_ERROR) toast.error(codeMessage(envelope.code, lang) ?? envelope.msg);
        return;
      }
      safeSet('session', TOURIST_NAME_KEY, check.name);
      safeSet('local', updateKey(roomNumber), 'true');
      const state: JoinedState = { joined: envelope.data, at: Date.now(), preJoined: true };
      await navigate(target(envelope.data), { state, replace: true });
    });
  };
  return { busy, error, clearError: () => setError(null), join };
}
