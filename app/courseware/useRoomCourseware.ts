/**
 * The room's courseware as this person sees it (docs/product/03-board-courseware-billing.md §4 courseware view, paging): the block
 * from `getRoomCourseware` (again after every reconnect), kept from the room channel's
 * `courseware` and `documentConvert` events. The creator's page and scroll show at once and are
 * saved with a 500 ms debounce (`setCoursewarePage`); everyone else follows the block.
 */
import { useCallback, useEffect, useLayoutEffect, useRef, useState } from 'react';
import { PAGE_SAVE_DEBOUNCE_MS, type RoomCourseware } from '#core/contracts/courseware.ts';
import type { ChannelStatus, CoursewareChannel } from '#app/classroom/useRoomChannel.ts';
import { isOk } from '#app/lib/api.ts';
import { cwApi } from './net.ts';
import { boundPage, NO_COURSEWARE, scrollOf } from '#core/courseware/paging.ts';
import type { ConvertStep } from './useUploader.ts';

/** An expired link is fetched again at most this often (a broken link must not loop). */
const REFETCH_MIN_MS = 3000;

export interface RoomCoursewareState {
  cw: RoomCourseware;
  /** False until the first answer. */
  loaded: boolean;
  page: number;
  scroll: number;
  /** Creator: show a page (bounded) now, save it after the debounce; scroll goes back to 0. */
  goPage: (page: number) => void;
  setScroll: (scroll: number) => void;
  /** Fresh signed links (an image or the video failed to load). */
  refetch: () => void;
  /** Replace the block (an answer of addRoomDocument / analysisDocumentExisting / closeRoomDocument). */
  replace: (cw: RoomCourseware) => void;
}

export interface RoomCoursewareOptions {
  roomNumber: string;
  channel: CoursewareChannel;
  status: ChannelStatus;
  isCreator: boolean;
  myId: string;
  /** The uploader's view of conversion steps. */
  onConvert?: (step: ConvertStep) => void;
  /** documentConvert failed for a document this person uploaded (and the uploader did not track it). */
  onMyConvertFailed?: () => void;
}

export function useRoomCourseware({
  roomNumber,
  channel,
  status,
  isCreator,
  myId,
  onConvert,
  onMyConvertFailed,
}: RoomCoursewareOptions): RoomCoursewareState {
  const [cw, setCw] = useState<RoomCourseware>(NO_COURSEWARE);
  const [loaded, setLoaded] = useState(false);
  const [local, setLocal] = useState<{ page: number; scroll: number } | null>(null);
  const pending = useRef<ReturnType<typeof setTimeout> | null>(null);
  const inFlight = useRef(0);
  const lastFetch = useRef(0);
  const cbRef = useRef({ onConvert, onMyConvertFailed });
  // The latest callbacks for the channel listeners, without re-subscribing.
  useLayoutEffect(() => {
    cbRef.current = { onConvert, onMyConvertFailed };
  });

  const accept = useCallback((next: RoomCourseware) => {
    setCw(next);
    // The creator's own pending change wins over an older echo.
    if (!pending.current && inFlight.current === 0) setLocal(null);
  }, []);

  const fetchNow = useCallback(() => {
    lastFetch.current = Date.now();
    // The state changes once the answer is here, never while an effect runs.
    return cwApi('getRoomCourseware', { roomNumber }, { quietNetworkError: true }).then((answer) => {
      if (isOk(answer)) {
        accept(answer.data.courseware);
        setLoaded(true);
      }
    });
  }, [roomNumber, accept]);

  // On entering, and after every reconnect: the block with fresh links.
  useEffect(() => {
    if (status === 'live') void fetchNow();
  }, [status, fetchNow]);

  useEffect(() => {
    const offCw = channel.on('courseware', ({ courseware }) => accept(courseware));
    const offConvert = channel.on('documentConvert', (p) => {
      accept(p.courseware);
      cbRef.current.onConvert?.({ taskId: p.taskId, documentId: p.documentId, phase: p.phase, done: p.done, total: p.total });
      if (p.phase === 'failed' && p.userId === myId) cbRef.current.onMyConvertFailed?.();
    });
    return () => {
      offCw();
      offConvert();
    };
  }, [channel, accept, myId]);

  useEffect(
    () => () => {
      if (pending.current) clearTimeout(pending.current);
    },
    [],
  );

  // Pages that can be shown: those converted so far (the block says 1 of 1 while there are none).
  const total = cw.images.length;
  const page = boundPage(local?.page ?? cw.pptCurrentPage, total);
  const scroll = local?.scroll ?? scrollOf(cw);

  const save = useCallback(
    (next: { page: number; scroll: number }) => {
      if (pending.current) clearTimeout(pending.current);
      pending.current = setTimeout(() => {
        pending.current = null;
        inFlight.current += 1;
        void channel.request('setCoursewarePage', { page: next.page, scroll: next.scroll }).then((ack) => {
          inFlight.current -= 1;
          if (ack.code !== '0' && !pending.current && inFlight.current === 0) setLocal(null);
        });
      }, PAGE_SAVE_DEBOUNCE_MS);
    },
    [channel],
  );

  const goPage = useCallback(
    (next: number) => {
      if (!isCreator) return;
      const bounded = boundPage(next, total);
      if (bounded === page) return;
      const value = { page: bounded, scroll: 0 };
      setLocal(value);
      save(value);
    },
    [isCreator, total, page, save],
  );

  const setScroll = useCallback(
    (next: number) => {
      if (!isCreator) return;
      const value = { page, scroll: next };
      setLocal(value);
      save(value);
    },
    [isCreator, page, save],
  );

  const refetch = useCallback(() => {
    if (Date.now() - lastFetch.current < REFETCH_MIN_MS) return;
    void fetchNow();
  }, [fetchNow]);

  const replace = useCallback((next: RoomCourseware) => {
    if (pending.current) clearTimeout(pending.current);
    pending.current = null;
    setLocal(null);
    setCw(next);
  }, []);

  return { cw, loaded, page, scroll, goPage, setScroll, refetch, replace };
}
