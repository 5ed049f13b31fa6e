/**
 * `useBoardSync()` owns the board socket for one room and person and returns `{status, store}`
 * (CONVENTIONS.md, board). The first token is the join answer's `wbtoken`; a later connection
 * (after it expired) asks `/api/createWbToken` for a fresh one.
 */
import { useCallback, useEffect, useState } from 'react';
import { createWbToken } from './net.ts';
import { BoardStore, type BoardStatus } from './store.ts';

export interface BoardSync {
  status: BoardStatus;
  store: BoardStore | null;
  /** The token in use (for the phone upload address and image calls). */
  token: () => string;
}

export function useBoardSync(roomNumber: string, uid: string, wbtoken: string): BoardSync {
  const [store, setStore] = useState<BoardStore | null>(null);
  const [status, setStatus] = useState<BoardStatus>('connecting');
  const [tokenBox] = useState(() => ({ current: wbtoken }));

  useEffect(() => {
    tokenBox.current = wbtoken;
    let first = true;
    const s = new BoardStore({
      uid,
      token: async () => {
        if (first && wbtoken) {
          first = false;
          return wbtoken;
        }
        const fresh = await createWbToken(uid, roomNumber);
        if (fresh) tokenBox.current = fresh.token;
        return fresh?.token ?? (tokenBox.current || null);
      },
    });
    const off = s.on('status', setStatus);
    setStore(s);
    setStatus(s.status);
    void s.connect();
    return () => {
      off();
      s.close();
    };
  }, [roomNumber, uid, wbtoken, tokenBox]);

  const token = useCallback(() => tokenBox.current, [tokenBox]);
  return { status, store, token };
}
