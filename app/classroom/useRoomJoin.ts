import { useCallback, useEffect, useState } from 'react';
import { useLocation, useNavigate } from 'react-router';
import type { JoinAnswer } from '#core/contracts/api.ts';
import { api, isOk, NETWORK_ERROR } from '#app/lib/api.ts';
import { logRoomErrors, logSystemInfo } from '#app/lib/client-log.ts';
import { muteNetworkAlert } from '#app/lib/network-alert.ts';
import { refusalPath } from '#app/lib/refusal.ts';
import { inviteKey, safeGet, safeSet, updateKey } from '#app/lib/storage.ts';
import { freshJoin, preJoined } from './joined.ts';

export type JoinState = { status: 'joining' } | { status: 'joined'; answer: JoinAnswer } | { status: 'failed' };

/**
 * Enters the room once the page is mounted and `go` is set (the pre-join's Join, ADR 089): the
 * per-room name check for tourists (docs/product/02-live-classroom.md §2 rule 7), then the join
 * call (or the answer the visitor's name step already got). Join refusals leave for the profile
 * with the code (docs/product/02-live-classroom.md §8); a network failure stays here with a retry.
 * `skipPreJoin` tells whether the page came from a screen that was the pre-join already.
 */
export function useRoomJoin(
  roomNumber: string,
  viewerType: '1' | '4' | null,
  observerToken: string | null = null,
  go = true,
): { state: JoinState; retry: () => void; skipPreJoin: boolean } {
  const navigate = useNavigate();
  const location = useLocation();
  const [state, setState] = useState<JoinState>({ status: 'joining' });
  const [attempt, setAttempt] = useState(0);
  // Read once: the handed-over answer stays usable however long the pre-join takes.
  const [handover] = useState(() => ({ fresh: freshJoin(location.state, roomNumber), preJoined: preJoined(location.state) }));
  const observer = observerToken !== null;
  const mustName = !observer && viewerType === '4';

  useEffect(() => {
    if (mustName && safeGet('local', updateKey(roomNumber)) !== 'true') {
      void navigate(`/userName/${roomNumber}`, { replace: true });
    }
  }, [mustName, roomNumber, navigate]);

  // The pre-join's Join, or no pre-join at all (an observer; the visitor's name step was the pre-join).
  const skipPreJoin = observer || (handover.fresh !== null && handover.preJoined);
  const joinNow = go || skipPreJoin;

  const retry = useCallback(() => {
    setState({ status: 'joining' });
    setAttempt((n) => n + 1);
  }, []);

  useEffect(() => {
    if (!joinNow) return;
    if (mustName && safeGet('local', updateKey(roomNumber)) !== 'true') return;
    const controller = new AbortController();
    const finish = (answer: JoinAnswer) => {
      if (answer.role === 'creator' && answer.roomInfo.roomType === 1) safeSet('local', inviteKey(roomNumber), 'true');
      setState({ status: 'joined', answer });
      logSystemInfo(roomNumber, answer.role); // the spec's system_info at join (ADR 102)
    };
    const ready = attempt === 0 && !observer ? handover.fresh : null;
    if (ready) {
      // Used once: a reload of the room joins again through its pre-join.
      const history = window.history.state as Record<string, unknown> | null;
      if (history && 'usr' in history) window.history.replaceState({ ...history, usr: null }, '');
      finish(ready);
      return;
    }
    const body = observer ? { roomNumber, userType: '3' as const, ot: observerToken } : { roomNumber };
    // A timeout or network failure: the 'network exception' message's RETRY joins again (ADR 102).
    void api('userJoinAgoraRoom', body, { retries: 1, signal: controller.signal, onRetry: retry }).then((envelope) => {
      if (controller.signal.aborted) return;
      if (isOk(envelope)) finish(envelope.data);
      else if (envelope.code === NETWORK_ERROR) setState({ status: 'failed' });
      else void navigate(refusalPath(envelope.code, roomNumber, envelope.reason), { replace: true }); // ADR 091: the refusal page
    });
    return () => controller.abort();
  }, [joinNow, mustName, observer, roomNumber, observerToken, attempt, navigate, handover, retry]);

  // Observers see no messages (docs/product/02-live-classroom.md §5), the network exception's included.
  useEffect(() => {
    if (!observer) return;
    muteNetworkAlert(true);
    return () => muteNetworkAlert(false);
  }, [observer]);
  // Uncaught errors while in the room go to the event log (ADR 102).
  const inRoom = state.status === 'joined';
  useEffect(() => (inRoom ? logRoomErrors(roomNumber) : undefined), [inRoom, roomNumber]);
  return { state, retry, skipPreJoin };
}
