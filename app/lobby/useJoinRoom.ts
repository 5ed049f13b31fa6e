import { useTranslation } from 'react-i18next';
import { useNavigate } from 'react-router';
import { invitePath } from '#core/contracts/api.ts';
import { useLang } from '#app/components/lang.tsx';
import { api, isOk, NETWORK_ERROR } from '#app/lib/api.ts';
import { useRequestLock } from '#app/lib/lock.ts';
import { codeMessage } from '#app/lib/messages.ts';
import { isValidRoomNumber } from '#app/lib/names.ts';
import { toast } from '#app/lib/toast.ts';
import type { JoinedState } from '#app/classroom/joined.ts';

/**
 * Join by number (docs/product/01-account-and-lobby.md §4, §8): check the number, join, then open the room's invite
 * path. The join is made here so a refusal (full, removed) is told in the lobby; the room's
 * pre-join then only chooses the devices and uses this answer (ADR 089).
 */
export function useJoinRoom() {
  const { t } = useTranslation();
  const { lang } = useLang();
  const navigate = useNavigate();
  const { busy, run } = useRequestLock();

  const join = (roomNumber: string) => {
    if (!isValidRoomNumber(roomNumber)) {
      toast.error(t('lobby.invalidNumber'));
      return Promise.resolve();
    }
    return run(async (requestId) => {
      const info = await api('getRoomInfoByRoomNumber', { roomNumber }, { requestId }); // RETRY re-runs this whole join (ADR 102)
      if (!isOk(info)) {
        if (info.code !== NETWORK_ERROR) toast.error(codeMessage(info.code, lang) ?? info.msg);
        return;
      }
      const joined = await api('userJoinAgoraRoom', { roomNumber }, { requestId, retries: 1 });
      if (!isOk(joined)) {
        if (joined.code !== NETWORK_ERROR) toast.error(codeMessage(joined.code, lang) ?? joined.msg);
        return;
      }
      const room = joined.data.roomInfo;
      const state: JoinedState = { joined: joined.data, at: Date.now() };
      await navigate(invitePath(room.roomType, room.roomNumber), { state });
    });
  };

  return { busy, join };
}
