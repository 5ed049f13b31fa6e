/**
 * One studio visit's takes (docs/product/02-live-classroom.md §4 studio recording): the take store
 * opened once, a take recorded (start 0→1, pause 1→2, resume 2→1, stop → the save screen), its
 * upload pumped while it records, the save screen's take (just recorded or recovered after a crash),
 * and the unsaved take offered when the studio opens. The take engine (app/studio/engine) does the
 * files and the upload; this hook only drives it.
 */
import { useCallback, useEffect, useLayoutEffect, useRef, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { STUDIO_LOW_SPACE_BYTES, STUDIO_MIN_RECORD_MS } from '#core/contracts/studio.ts';
import { toast } from '#app/lib/toast.ts';
import { createRecorder, createUpload, openTakeStore, pickMimeType } from './engine/index.ts';
import type { Take, TakeMeta, TakeRecorder, TakeStore, TakeUpload, UploadProgress } from './engine/types.ts';

export type SessionState = 'idle' | 'starting' | 'recording' | 'paused' | 'stopping';

/** The save screen's take. */
export interface Saving {
  take: Take;
  upload: TakeUpload;
  /** Opened from the recovery dialog (not just recorded). */
  recovered: boolean;
}

/** What end-to-end tests read (window.__banshuStudio, test build only): the take in hand and its upload's progress. */
export interface TakePeek {
  take: () => TakeMeta | null;
  upload: () => UploadProgress | null;
}

/** How often the upload is given the slices written since (the recorder writes one a second). */
const PUMP_MS = 1000;
const ELAPSED_MS = 250;
/** Free space is looked at again this often while recording. */
const SPACE_CHECK_MS = 30_000;

/** The screens stop hearing an upload they let go. */
function detach(upload: TakeUpload): void {
  upload.onProgress = null;
}

interface Active {
  take: Take;
  recorder: TakeRecorder;
  upload: TakeUpload;
  timers: Array<ReturnType<typeof setInterval>>;
}

export interface TakeSessionOptions {
  /** The stream to record: the compositor's picture and the sound; null when it cannot be made. */
  stream: () => MediaStream | null;
  /** Recording began (the compositor starts drawing). */
  onStarted: () => void;
  /** Recording ended (either way): the compositor may rest. */
  onEnded: () => void;
  /** No microphone for this take. */
  hasMic: () => boolean;
}

export function useTakeSession(options: TakeSessionOptions) {
  const { t } = useTranslation();
  /** undefined while opening; null when this browser cannot keep takes. */
  const [store, setStore] = useState<TakeStore | null | undefined>(undefined);
  const [state, setState] = useState<SessionState>('idle');
  const [elapsedMs, setElapsedMs] = useState(0);
  const [saving, setSaving] = useState<Saving | null>(null);
  const [progress, setProgress] = useState<UploadProgress | null>(null);
  const [recovered, setRecovered] = useState<TakeMeta | null>(null);
  const active = useRef<Active | null>(null);
  const stateRef = useRef<SessionState>('idle');
  const progressRef = useRef<UploadProgress | null>(null);
  const savingRef = useRef<Saving | null>(null);
  const opts = useRef(options);
  useLayoutEffect(() => {
    opts.current = options;
  });

  const moveTo = useCallback((next: SessionState) => {
    stateRef.current = next;
    setState(next);
  }, []);

  const follow = useCallback((upload: TakeUpload) => {
    progressRef.current = null;
    setProgress(null);
    upload.onProgress = (p) => {
      progressRef.current = p;
      setProgress({ ...p });
    };
  }, []);

  const showSaving = useCallback((next: Saving | null) => {
    savingRef.current = next;
    setSaving(next);
  }, []);

  // The store, and an unsaved take from an earlier visit.
  useEffect(() => {
    let current = true;
    void openTakeStore()
      .catch(() => null)
      .then(async (opened) => {
        if (!current) return;
        setStore(opened);
        const unsaved = opened ? await opened.unsaved().catch(() => []) : [];
        if (current && unsaved[0]) setRecovered(unsaved[0]);
      });
    return () => {
      current = false;
    };
  }, []);

  // For the test hook: the take in hand (recording or on the save screen) and its upload's progress.
  const [peek] = useState<TakePeek>(() => ({
    take: () => active.current?.take.meta ?? savingRef.current?.take.meta ?? null,
    upload: () => progressRef.current,
  }));

  // Leaving the page mid-take: the recorder stops (what was written stays for the recovery dialog).
  useEffect(
    () => () => {
      const a = active.current;
      active.current = null;
      if (!a) return;
      for (const timer of a.timers) clearInterval(timer);
      void a.recorder.stop().catch(() => undefined);
      opts.current.onEnded();
    },
    [],
  );

  const stop = useCallback(
    async (forced = false) => {
      const a = active.current;
      if (!a || (stateRef.current !== 'recording' && stateRef.current !== 'paused')) return;
      if (!forced && a.recorder.elapsedMs() < STUDIO_MIN_RECORD_MS) {
        toast.info(t('studio.record.tooShort'));
        return;
      }
      moveTo('stopping');
      setElapsedMs(a.recorder.elapsedMs());
      try {
        await a.recorder.stop();
      } catch {
        // The take keeps every slice written; the save screen offers what there is.
      }
      for (const timer of a.timers) clearInterval(timer);
      a.upload.pump();
      active.current = null;
      opts.current.onEnded();
      showSaving({ take: a.take, upload: a.upload, recovered: false });
      moveTo('idle');
    },
    [t, moveTo, showSaving],
  );

  const start = useCallback(async () => {
    if (stateRef.current !== 'idle' || savingRef.current) return;
    if (store === undefined) return;
    if (store === null) {
      toast.error(t('studio.record.noStore'));
      return;
    }
    // Inside the click: the sound's audio context may only start from a gesture.
    const stream = opts.current.stream();
    const mimeType = pickMimeType();
    if (!stream || !mimeType) {
      toast.error(t('studio.record.noStore'));
      return;
    }
    moveTo('starting');
    let take: Take | null = null;
    try {
      await store.persist().catch(() => false);
      const free = await store.freeBytes().catch(() => null);
      if (free !== null && free < STUDIO_LOW_SPACE_BYTES) toast.error(t('studio.record.lowSpace'));
      take = await store.create(mimeType);
      const recorder = createRecorder(stream, take);
      const upload = createUpload(take);
      follow(upload);
      const a: Active = { take, recorder, upload, timers: [] };
      recorder.onError = () => {
        if (active.current !== a) return;
        toast.error(t('studio.record.writeFailed'));
        void stop(true);
      };
      opts.current.onStarted();
      recorder.start();
      active.current = a;
      let warned = free !== null && free < STUDIO_LOW_SPACE_BYTES;
      a.timers.push(
        setInterval(() => upload.pump(), PUMP_MS),
        // The page shows whole seconds: it renders again only when the second changes.
        setInterval(() => {
          const ms = recorder.elapsedMs();
          setElapsedMs((shown) => (Math.floor(shown / 1000) === Math.floor(ms / 1000) ? shown : ms));
        }, ELAPSED_MS),
        setInterval(() => {
          if (warned) return;
          void store.freeBytes().then((bytes) => {
            if (warned || bytes === null || bytes >= STUDIO_LOW_SPACE_BYTES || active.current !== a) return;
            warned = true;
            toast.error(t('studio.record.lowSpace'));
          });
        }, SPACE_CHECK_MS),
      );
      setElapsedMs(0);
      moveTo('recording');
      if (!opts.current.hasMic()) toast.info(t('studio.record.noMic'));
    } catch {
      opts.current.onEnded();
      if (take) void store.remove(take.meta.id).catch(() => undefined);
      active.current = null;
      moveTo('idle');
      toast.error(t('studio.record.startFailed'));
    }
  }, [store, t, moveTo, follow, stop]);

  const pause = useCallback(() => {
    const a = active.current;
    if (!a || stateRef.current !== 'recording') return;
    a.recorder.pause();
    setElapsedMs(a.recorder.elapsedMs());
    moveTo('paused');
  }, [moveTo]);

  const resume = useCallback(() => {
    const a = active.current;
    if (!a || stateRef.current !== 'paused') return;
    a.recorder.resume();
    moveTo('recording');
  }, [moveTo]);

  /** Drops the take in hand, recording or on the save screen: its upload aborted, its files removed. */
  const discard = useCallback(async () => {
    const a = active.current;
    const s = savingRef.current;
    active.current = null;
    showSaving(null);
    if (a) {
      for (const timer of a.timers) clearInterval(timer);
      await a.recorder.stop().catch(() => undefined);
      opts.current.onEnded();
    }
    const take = a?.take ?? s?.take;
    const upload = a?.upload ?? s?.upload;
    if (upload) {
      detach(upload);
      await upload.abort().catch(() => undefined);
    }
    if (take && store) await store.remove(take.meta.id).catch(() => undefined);
    progressRef.current = null;
    setProgress(null);
    setElapsedMs(0);
    moveTo('idle');
  }, [store, moveTo, showSaving]);

  /** The save screen is done with a take that was saved (cloud or local): its files go. */
  const release = useCallback(async () => {
    const s = savingRef.current;
    showSaving(null);
    progressRef.current = null;
    setProgress(null);
    setElapsedMs(0);
    if (!s) return;
    detach(s.upload);
    if (store) await store.remove(s.take.meta.id).catch(() => undefined);
  }, [store, showSaving]);

  const keepRecovered = useCallback(async () => {
    const meta = recovered;
    setRecovered(null);
    if (!meta || !store) return;
    const take = await store.open(meta.id).catch(() => null);
    if (!take) {
      toast.error(t('studio.recover.openFailed'));
      return;
    }
    // A take cut off by a crash was still 'recording': it is finished as it stands.
    if (take.meta.state === 'recording') await take.update({ state: 'stopped' }).catch(() => undefined);
    const upload = createUpload(take);
    follow(upload);
    showSaving({ take, upload, recovered: true });
  }, [recovered, store, t, follow, showSaving]);

  const discardRecovered = useCallback(async () => {
    const meta = recovered;
    setRecovered(null);
    if (!meta || !store) return;
    await store.remove(meta.id).catch(() => undefined);
    // An older one, if any, is offered next.
    const rest = await store.unsaved().catch(() => []);
    if (rest[0] && rest[0].id !== meta.id) setRecovered(rest[0]);
  }, [recovered, store]);

  return {
    peek,
    store,
    state,
    elapsedMs,
    saving,
    progress,
    recovered,
    start,
    pause,
    resume,
    stop,
    discard,
    release,
    keepRecovered,
    discardRecovered,
  };
}

export type TakeSession = ReturnType<typeof useTakeSession>;
