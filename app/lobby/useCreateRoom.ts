import { useTranslation } from 'react-i18next';
import { useNavigate } from 'react-router';
import { invitePath, type ApiData, type Envelope } from '#core/contracts/api.ts';
import { useLang } from '#app/components/lang.tsx';
import { api, isOk, NETWORK_ERROR } from '#app/lib/api.ts';
import { useRequestLock } from '#app/lib/lock.ts';
import { codeMessage } from '#app/lib/messages.ts';
import { toast } from '#app/lib/toast.ts';

export type CreateChoice = { roomType: 1; consumption: 'on' | 'off' } | { roomType: 2 | 3 | 4 };

const CREATE_ERRORS = new Set(['21007', '21008', '31001']);

/** Create with the lock of docs/product/01-account-and-lobby.md §4; one request id per click, reused by its retry. */
export function useCreateRoom() {
  const { t } = useTranslation();
  const { lang } = useLang();
  const navigate = useNavigate();
  const { busy, run } = useRequestLock();

  const create = (choice: CreateChoice) =>
    run(async (requestId) => {
      const options = { requestId, retries: 1, networkText: 'create.failedRetry' as const };
      let envelope: Envelope<ApiData<'createAgoraRoom'>>;
      if (choice.roomType === 1) {
        envelope = await api('createAgoraRoom', { roomType: 1, consumption: choice.consumption }, options);
      } else {
        envelope = await api('createRoom', { roomType: choice.roomType, consumption: 'off' }, options);
      }
      if (isOk(envelope)) {
        const room = envelope.data.roomInfo;
        await navigate(invitePath(room.roomType, room.roomNumber));
        return;
      }
      if (envelope.code === NETWORK_ERROR) return; // the 'network exception' message with its retry (ADR 102)
      if (CREATE_ERRORS.has(envelope.code)) toast.error(codeMessage(envelope.code, lang) ?? envelope.msg);
      else toast.error(envelope.msg || t('create.failedRetry'));
    });

  return { busy, create };
}
