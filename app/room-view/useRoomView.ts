/**
 * `useRoomView(roomNumber, { uid, show })` — a room's shown page and board without a seat
 * (ADR 093), for `/ppt/{id}`, `/ppt/{id}/{uid}` and `/wb/{id}/{uid}`.
 *
 * Asks `/api/getRoomView` once, then keeps the answer live from the board socket's `roomView`
 * events (courseware page and document, showState, roomExtend, wbPower, closed). Returns:
 * - `phase`: 'loading' | 'ready' | 'refused' (see `refusal`) | 'closed' (the class ended);
 * - `refusal`: `{ code, reason }` of a refused getRoomView ('7' no session, 31002, 31004 ...);
 * - `view`: the RoomView as it stands now (null until the first answer); `view.canDraw` says
 *   whether this viewer may draw (the room's creator on their own view; the server enforces it);
 * - `store` / `boardStatus`: the board (app/board/store.ts) connected with the view's token;
 * - `layer`: the board layer shown (`doc:{id}:{page}` or `wb:{n}`, see `show` below), `shown`:
 *   'slide' | 'board', and `slide`: the current slide's image URL, page, total and size, or null;
 * - `turnPage(page)`: the creator turns the room's courseware page (refused for anyone else);
 * - `refresh()`: asks again (fresh signed links after an image failed to load);
 * - `token()`: the board token in use (for board picture links).
 * `show`: 'slide' (default: the document when one is open, else the whiteboard page), 'board'
 * (always the whiteboard page), 'follow' (what the room shows: the document while showState is
 * 'ppt', else the whiteboard page).
 */
import { useCallback, useEffect, useMemo, useRef, useState, useSyncExternalStore } from 'react';
import type { RoomView } from '#core/contracts/api.ts';
import type { RoomViewEvent } from '#core/contracts/board.ts';
import { slideLayer } from '#core/contracts/courseware.ts';
import { api, isOk } from '#app/lib/api.ts';
import { BoardStore, type BoardStatus } from '#app/board/store.ts';
import { readExtend, wbLayer } from '#core/board/draw/tools.ts';

export type RoomViewShow = 'slide' | 'board' | 'follow';
export type RoomViewPhase = 'loading' | 'ready' | 'refused' | 'closed';

export interface RoomViewSlide {
  url: string;
  page: number;
  total: number;
  size: { width: number; height: number } | undefined;
  scroll: number;
}

export interface RoomViewState {
  phase: RoomViewPhase;
  refusal: { code: string; reason?: string | undefined } | null;
  view: RoomView | null;
  store: BoardStore | null;
  boardStatus: BoardStatus;
  shown: 'slide' | 'board';
  layer: string;
  slide: RoomViewSlide | null;
  turnPage: (page: number) => Promise<{ code: string; msg: string }>;
  refresh: () => void;
  /** The board token in use (board picture links). */
  token: () => string;
}

/** Fresh links at most this often (a broken image must not loop). */
const REFRESH_MIN_MS = 3000;

/** What the view shows now: the slide layer of the shown document, or the whiteboard page. */
export function shownLayer(
  view: RoomView | null,
  show: RoomViewShow,
): { shown: 'slide' | 'board'; layer: string; slide: RoomViewSlide | null } {
  const board = { shown: 'board' as const, layer: wbLayer(view ? readExtend(view.roomExtend).pageIndex : 0), slide: null };
  if (!view || show === 'board') return board;
  const cw = view.courseware;
  const hasSlides = !!cw.documentId && cw.documentType === 1 && cw.images.length > 0;
  if (!hasSlides || (show === 'follow' && view.showState !== 'ppt')) return board;
  const total = cw.images.length;
  const page = Math.max(1, Math.min(total, cw.pptCurrentPage || 1));
  return {
    shown: 'slide',
    layer: slideLayer(cw.documentId, page),
    slide: { url: cw.images[page - 1] ?? '', page, total, size: cw.sizes[page - 1], scroll: cw.scroll ?? 0 },
  };
}

/** A view with a room event applied. */
export function applyViewEvent(view: RoomView, e: RoomViewEvent): RoomView {
  return {
    ...view,
    ...(e.courseware ? { courseware: e.courseware } : {}),
    ...(e.showState !== undefined ? { showState: e.showState } : {}),
    ...(e.roomExtend !== undefined ? { roomExtend: e.roomExtend } : {}),
    ...(e.wbPower !== undefined ? { wbPower: e.wbPower } : {}),
    ...(e.closed ? { state: 'closed' as const } : {}),
  };
}

const noStatus = () => () => undefined;

export function useRoomView(roomNumber: string, options: { uid?: string | undefined; show?: RoomViewShow } = {}): RoomViewState {
  const { uid, show = 'slide' } = options;
  const [view, setView] = useState<RoomView | null>(null);
  const [refusal, setRefusal] = useState<RoomViewState['refusal']>(null);
  const [store, setStore] = useState<BoardStore | null>(null);
  const tokenRef = useRef('');
  const lastRefresh = useRef(0);

  const load = useCallback((): Promise<RoomView | null> => {
    lastRefresh.current = Date.now();
    // The state changes once the answer is here, never while an effect runs.
    return api('getRoomView', uid ? { roomNumber, uid } : { roomNumber }, { quietNetworkError: true }).then((answer) => {
      if (isOk(answer)) {
        tokenRef.current = answer.data.wbtoken;
        setView(answer.data);
        setRefusal(null);
        return answer.data;
      }
      // A network failure keeps what is shown; a refusal replaces it.
      if (answer.code !== 'network') setRefusal({ code: answer.code, reason: answer.reason });
      return null;
    });
  }, [roomNumber, uid]);

  useEffect(() => {
    void load();
  }, [load]);

  // One board per viewer and power: a fresh token (same viewer) keeps the connection.
  const viewerId = view?.viewerId ?? '';
  const canDraw = view?.canDraw ?? false;
  useEffect(() => {
    if (!viewerId) return;
    let first = true;
    const s = new BoardStore({
      uid: viewerId,
      token: async () => {
        if (first && tokenRef.current) {
          first = false;
          return tokenRef.current;
        }
        const fresh = await load();
        return fresh?.wbtoken ?? null;
      },
      // The room's changes come on the board socket, parsed by their schema (core/contracts/board.ts roomView).
      onRoomView: (e) => setView((v) => (v ? applyViewEvent(v, e) : v)),
    });
    setStore(s);
    void s.connect();
    // Back after a drop: what changed meanwhile comes with a fresh answer.
    let wasLive = false;
    const off = s.on('status', (status) => {
      if (status === 'live' && wasLive) void load();
      if (status === 'live') wasLive = true;
    });
    return () => {
      off();
      s.close();
    };
  }, [viewerId, canDraw, roomNumber, load]);

  const subscribe = useCallback((changed: () => void) => (store ? store.on('status', changed) : noStatus()), [store]);
  const boardStatus = useSyncExternalStore<BoardStatus>(
    subscribe,
    () => store?.status ?? 'connecting',
    () => 'connecting',
  );

  const turnPage = useCallback(
    async (page: number): Promise<{ code: string; msg: string }> => {
      if (!store) return { code: 'network', msg: '' };
      const ack = await store.turnPage(page);
      const courseware = ack.data;
      if (ack.code === '0' && courseware) setView((v) => (v ? applyViewEvent(v, { courseware }) : v));
      return { code: ack.code, msg: ack.msg };
    },
    [store],
  );

  const refresh = useCallback(() => {
    if (Date.now() - lastRefresh.current < REFRESH_MIN_MS) return;
    void load();
  }, [load]);

  const token = useCallback(() => tokenRef.current, []);
  const { shown, layer, slide } = useMemo(() => shownLayer(view, show), [view, show]);
  const phase: RoomViewPhase = refusal ? 'refused' : !view ? 'loading' : view.state === 'closed' ? 'closed' : 'ready';
  return { phase, refusal, view, store, boardStatus, shown, layer, slide, turnPage, refresh, token };
}
