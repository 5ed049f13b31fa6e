import { useCallback, useEffect, useRef, useState } from 'react';
import { useLocation, useNavigate } from 'react-router';
import type { JoinAnswer } from '#core/contracts/api.ts';
import { api, isOk, NETWORK_ERROR } from '#app/lib/api.ts';
import { inviteKey, safeGet, safeSet, updateKey } from '#app/lib/storage.ts';
import { freshJoin } from './joined.ts';

export type JoinState = { status: 'joining' } | { status: 'joined'; answer: JoinAnswer } | { status: 'failed' };

/**
 * Enters the room once the page is mounted: the per-room name check for tourists (docs/product/02-live-classroom.md §2
 * rule 7), then the join call (or the answer the lobby already got). Join refusals leave for the
 * profile with the code (docs/product/02-live-classroom.md §8); a network failure stays here with a retry.
 */
export function useRoomJoin(
  roomNumber: string,
  viewerType: '1' | '4' | null,
  observerToken: string | null = null,
): { state: JoinState; retry: () => void } {
  const navigate = useNavigate();
  const location = useLocation();
  const [state, setState] = useState<JoinState>({ status: 'joining' });
  const [attempt, setAttempt] = useState(0);
  const handedOver = useRef(location.state);

  useEffect(() => {
    const observer = observerToken !== null;
    if (!observer && viewerType === '4' && safeGet('local', updateKey(roomNumber)) !== 'true') {
      void navigate(`/userName/${roomNumber}`, { replace: true });
      return;
    }
    const controller = new AbortController();
    const finish = (answer: JoinAnswer) => {
      if (answer.role === 'creator' && answer.roomInfo.roomType === 1) safeSet('local', inviteKey(roomNumber), 'true');
      setState({ status: 'joined', answer });
    };
    const ready = attempt === 0 && !observer ? freshJoin(handedOver.current, roomNumber) : null;
    if (ready) {
      finish(ready);
      return;
    }
    setState({ status: 'joining' });
    const body = observer ? { roomNumber, userType: '3' as const, ot: observerToken } : { roomNumber };
    void api('userJoinAgoraRoom', body, { retries: 1, signal: controller.signal }).then((envelope) => {
      if (controller.signal.aborted) return;
      if (isOk(envelope)) finish(envelope.data);
      else if (envelope.code === NETWORK_ERROR) setState({ status: 'failed' });
      else void navigate(`/profile?joinRoomError=${encodeURIComponent(envelope.code)}`, { replace: true });
    });
    return () => controller.abort();
  }, [roomNumber, viewerType, observerToken, attempt, navigate]);

  const retry = useCallback(() => setAttempt((n) => n + 1), []);
  return { state, retry };
}
