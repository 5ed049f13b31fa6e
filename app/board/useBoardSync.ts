/**
 * `useBoardSync()` owns the board socket for one room and person and returns `{status, store}`
 * (ADR 017). The first token is the join answer's `wbtoken`; a later connection
 * (after it expired) asks `/api/createWbToken` for a fresh one.
 */
import { useCallback, useEffect, useRef, useState, useSyncExternalStore } from 'react';
import { createWbToken } from './net.ts';
import { BoardStore, type BoardStatus } from './store.ts';

export interface BoardSync {
  status: BoardStatus;
  store: BoardStore | null;
  /** The token in use (for the phone upload address and image calls). */
  token: () => string;
}

const noStore = () => () => undefined;

export function useBoardSync(roomNumber: string, uid: string, wbtoken: string): BoardSync {
  const [store, setStore] = useState<BoardStore | null>(null);
  const tokenRef = useRef(wbtoken);

  useEffect(() => {
    tokenRef.current = wbtoken;
    let first = true;
    const s = new BoardStore({
      uid,
      token: async () => {
        if (first && wbtoken) {
          first = false;
          return wbtoken;
        }
        const fresh = await createWbToken(uid, roomNumber);
        if (fresh) tokenRef.current = fresh.token;
        return fresh?.token ?? (tokenRef.current || null);
      },
    });
    setStore(s);
    void s.connect();
    return () => s.close();
  }, [roomNumber, uid, wbtoken]);

  const subscribe = useCallback((changed: () => void) => (store ? store.on('status', changed) : noStore()), [store]);
  const status = useSyncExternalStore<BoardStatus>(
    subscribe,
    () => store?.status ?? 'connecting',
    () => 'connecting',
  );
  const token = useCallback(() => tokenRef.current, []);
  return { status, store, token };
}
