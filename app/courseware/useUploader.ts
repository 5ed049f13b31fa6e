/**
 * The upload flow of docs/product/03-board-courseware-billing.md §4 "Upload to library", shared by the room and the library:
 * type and size check -> MD5 in 2 MiB slices (worker) -> checkFileHash -> reuse (another user's
 * copy with the answer to the server's challenge, ADR 069), or presigned PUT (progress, cancel)
 * -> addRoomDocument -> conversion progress until the document is done.
 * The conversion progress comes from outside (the room channel's documentConvert, or the user
 * channel's documentStatus), through `convertEvent`.
 */
import { useCallback, useEffect, useLayoutEffect, useRef, useState } from 'react';
import { useTranslation } from 'react-i18next';
import type { DocumentInfo, DocumentStatus, RoomCourseware } from '#core/contracts/courseware.ts';
import { isOk, NETWORK_ERROR } from '#app/lib/api.ts';
import { currentLang } from '#app/lib/lang.ts';
import { codeMessage } from '#app/lib/messages.ts';
import { toast } from '#app/lib/toast.ts';
import { checkCoursewareFile, percent, uploadName } from './files.ts';
import { answerChallenge, md5File } from './hash.ts';
import { cwApi, putFile } from './net.ts';

export type UploadPhase =
  | { kind: 'idle' }
  | { kind: 'hashing'; name: string; percent: number }
  | { kind: 'checking'; name: string }
  | { kind: 'uploading'; name: string; percent: number }
  | { kind: 'registering'; name: string }
  | { kind: 'converting'; name: string; taskId: string; documentId: string; done: number; total: number };

export interface UploadResult {
  documentId: string;
  taskId: string;
  status: DocumentStatus;
  courseware: RoomCourseware | null;
}

export interface UploaderOptions {
  /** The creator's room the document opens in; none for the library. */
  roomNumber?: string;
  allowVideo: boolean;
  /** Registered (reused or uploaded): the document and its status now. */
  onRegistered?: (result: UploadResult) => void;
}

/** A conversion step for the document being uploaded (from either channel). */
export interface ConvertStep {
  taskId: string;
  documentId: string;
  phase: 'progress' | 'done' | 'failed';
  done: number;
  total: number;
}

export function convertStepOfDocument(doc: DocumentInfo): ConvertStep {
  const phase = doc.status === 3 ? 'done' : doc.status === 2 || doc.status === 4 ? 'failed' : 'progress';
  return { taskId: doc.taskId, documentId: doc.documentId, phase, done: doc.pageCount, total: phase === 'done' ? doc.pageCount : 0 };
}

export interface Uploader {
  phase: UploadPhase;
  /** Starts with a picked file; false when it was refused (a toast says why). */
  start: (file: File) => Promise<boolean>;
  /** Cancels hashing or the upload (the server is told); a conversion cannot be cancelled. */
  cancel: () => void;
  convertEvent: (step: ConvertStep) => void;
}

export function useUploader(options: UploaderOptions): Uploader {
  const { t } = useTranslation();
  const [phase, setPhase] = useState<UploadPhase>({ kind: 'idle' });
  const phaseRef = useRef(phase);
  const optionsRef = useRef(options);
  // The latest options for the upload in progress.
  useLayoutEffect(() => {
    optionsRef.current = options;
  });
  const abortRef = useRef<(() => void) | null>(null);
  const runRef = useRef(0);
  /** Ends of conversions heard while the registration answer was still on its way (a small file converts, or fails, that fast). */
  const earlyEnds = useRef(new Map<string, ConvertStep['phase']>());

  const set = useCallback((next: UploadPhase) => {
    phaseRef.current = next;
    setPhase(next);
  }, []);

  useEffect(
    () => () => {
      runRef.current += 1;
      abortRef.current?.();
    },
    [],
  );

  const fail = useCallback(
    (code: string, msg: string) => {
      if (code !== NETWORK_ERROR) toast.error(msg || codeMessage(code, currentLang()) || t('courseware.upload.failed'));
      set({ kind: 'idle' });
    },
    [set, t],
  );

  const start = useCallback(
    async (file: File): Promise<boolean> => {
      if (phaseRef.current.kind !== 'idle' && phaseRef.current.kind !== 'converting') return false;
      const check = checkCoursewareFile(file, optionsRef.current.allowVideo);
      if (!check.ok) {
        toast.error(
          check.reason === 'size'
            ? t('courseware.upload.tooLarge')
            : check.reason === 'empty'
              ? t('courseware.upload.empty')
              : t('courseware.upload.badType'),
        );
        return false;
      }
      const run = ++runRef.current;
      const live = () => run === runRef.current;
      const name = uploadName(file.name, check.extension);
      const roomNumber = optionsRef.current.roomNumber;

      // 1. The hash, in 2 MiB slices off the main thread.
      set({ kind: 'hashing', name, percent: 0 });
      const hashing = new AbortController();
      abortRef.current = () => hashing.abort();
      let fileHash: string;
      try {
        fileHash = await md5File(
          file,
          (done, total) => live() && set({ kind: 'hashing', name, percent: percent(done, total) }),
          hashing.signal,
        );
      } catch {
        if (live() && !hashing.signal.aborted) fail('', t('courseware.upload.failed'));
        return false;
      }
      if (!live()) return false;

      // 2. Known file: reuse it, nothing uploaded.
      set({ kind: 'checking', name });
      abortRef.current = null;
      const known = await cwApi('checkFileHash', { fileHash });
      if (!live()) return false;
      if (!isOk(known)) {
        fail(known.code, known.msg);
        return false;
      }
      // 3. A presigned PUT straight to the store; null when refused, cancelled or failed.
      const upload = async (): Promise<string | null> => {
        const sign = await cwApi('createUpyunSign', {
          fileName: name,
          fileSize: file.size,
          fileHash,
          ...(roomNumber ? { roomNumber } : {}),
        });
        if (!live()) return null;
        if (!isOk(sign)) {
          fail(sign.code, sign.msg);
          return null;
        }
        set({ kind: 'uploading', name, percent: 0 });
        const put = putFile(
          sign.data.uploadUrl,
          sign.data.method,
          sign.data.headers,
          file,
          (sent, total) => live() && set({ kind: 'uploading', name, percent: percent(sent, total) }),
        );
        abortRef.current = () => {
          put.abort();
          // The server forgets the pending upload (docs/product/03-board-courseware-billing.md §4: cancel notifies the server).
          void cwApi(
            'updateDocumentNotice',
            { roomNumber: roomNumber ?? '', documentSource: sign.data.saveName },
            { quietNetworkError: true },
          );
        };
        const outcome = await put.done;
        abortRef.current = null;
        if (!live() || outcome === 'aborted') return null;
        if (outcome === 'failed') {
          fail('', t('courseware.upload.failed'));
          return null;
        }
        return sign.data.saveName;
      };

      // 4. Register; a new file's conversion is queued.
      const register = (documentSource: string, proof: { nonce: string; rangeHash: string } | null) => {
        set({ kind: 'registering', name });
        return cwApi('addRoomDocument', {
          documentSource,
          documentName: name,
          fileHash,
          documentType: check.documentType,
          ...(roomNumber ? { roomNumber } : {}),
          ...proof,
        });
      };
      let added;
      if (known.data.fileExist && known.data.documentInfo) {
        added = await register(known.data.documentInfo.documentSource, null);
      } else {
        // Another user's copy of these bytes: answering the challenge from the file saves the upload.
        const challenge = known.data.challenge;
        const proof = challenge ? await answerChallenge(file, challenge).catch(() => null) : null;
        if (!live()) return false;
        added = proof ? await register('', proof) : null;
        if (!live()) return false;
        // No copy, or refused (it went meanwhile): upload as for a new file.
        if (!added || !isOk(added)) {
          const documentSource = await upload();
          if (documentSource === null) return false;
          added = await register(documentSource, null);
        }
      }
      if (!live()) return false;
      if (!isOk(added)) {
        fail(added.code, added.msg);
        return false;
      }
      const { taskId, documentId, courseware } = added.data;
      const early = earlyEnds.current.get(documentId);
      earlyEnds.current.clear();
      const documentStatus: DocumentStatus = early === 'done' ? 3 : early === 'failed' ? 4 : added.data.documentStatus;
      optionsRef.current.onRegistered?.({ documentId, taskId, status: documentStatus, courseware });
      if (documentStatus === 3) {
        set({ kind: 'idle' });
        toast.success(t('courseware.upload.ready'));
      } else if (documentStatus === 2 || documentStatus === 4) {
        set({ kind: 'idle' });
        toast.error(t('courseware.parseFailed'));
      } else {
        set({ kind: 'converting', name, taskId, documentId, done: 0, total: 0 });
        if (!roomNumber) toast.info(t('courseware.upload.processing'));
      }
      return true;
    },
    [fail, set, t],
  );

  const cancel = useCallback(() => {
    const k = phaseRef.current.kind;
    if (k !== 'hashing' && k !== 'uploading' && k !== 'checking') return;
    runRef.current += 1;
    abortRef.current?.();
    abortRef.current = null;
    set({ kind: 'idle' });
    toast.info(t('courseware.upload.cancelled'));
  }, [set, t]);

  const convertEvent = useCallback(
    (step: ConvertStep) => {
      const p = phaseRef.current;
      if (p.kind === 'registering' && step.phase !== 'progress') earlyEnds.current.set(step.documentId, step.phase);
      if (p.kind !== 'converting' || (step.taskId !== p.taskId && step.documentId !== p.documentId)) return;
      if (step.phase === 'done') {
        set({ kind: 'idle' });
      } else if (step.phase === 'failed') {
        set({ kind: 'idle' });
        toast.error(t('courseware.parseFailed'));
      } else {
        set({ ...p, done: Math.max(p.done, step.done), total: step.total || p.total });
      }
    },
    [set, t],
  );

  return { phase, start, cancel, convertEvent };
}
