import { useCallback, useEffect, useLayoutEffect, useRef, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Link } from 'react-router';
import { DOCUMENT_PAGE_SIZE, type DocumentInfo } from '#core/contracts/courseware.ts';
import type { RoomListItem } from '#core/contracts/api.ts';
import { useUserEvents } from '#app/billing/useUserEvents.ts';
import { Button } from '#app/components/Button.tsx';
import { Dialog, useConfirm } from '#app/components/Dialog.tsx';
import { LocalTime } from '#app/components/LocalTime.tsx';
import { StatusText } from '#app/courseware/RecentPicker.tsx';
import { UploadBox } from '#app/courseware/UploadBox.tsx';
import { cwApi } from '#app/courseware/net.ts';
import { convertStepOfDocument, useUploader } from '#app/courseware/useUploader.ts';
import { formatSize } from '#app/courseware/files.ts';
import '#app/courseware/courseware.css';
import { api, isOk, NETWORK_ERROR } from '#app/lib/api.ts';
import { helpPath } from '#app/lib/help.ts';
import { currentLang } from '#app/lib/lang.ts';
import { codeMessage } from '#app/lib/messages.ts';
import { toast } from '#app/lib/toast.ts';

export function meta() {
  return [{ title: '板书 · 我的课件 / My courseware' }];
}

/** Newest first, one row per document (a later copy of a row replaces the earlier). */
const settled = (status: number) => status === 2 || status === 3 || status === 4;

/**
 * One list from two, `top` first, each document once. A list answer read while a document was
 * still converting may arrive after the live event that said it is done: an ended status is never
 * taken back to 'uploading' or 'parsing'.
 */
function merge(top: DocumentInfo[], rest: DocumentInfo[]): DocumentInfo[] {
  const at = new Map<string, number>();
  const out: DocumentInfo[] = [];
  for (const d of [...top, ...rest]) {
    const i = at.get(d.documentId);
    if (i === undefined) {
      at.set(d.documentId, out.length);
      out.push(d);
    } else if (!settled(out[i]!.status) && settled(d.status)) {
      out[i] = { ...out[i]!, status: d.status, pageCount: d.pageCount, failReason: d.failReason };
    }
  }
  return out;
}

function toastError(answer: { code: string; msg: string }, fallback: string): void {
  if (answer.code === NETWORK_ERROR) return;
  toast.error(answer.msg || codeMessage(answer.code, currentLang()) || fallback);
}

/**
 * The document library (docs/product/03-board-courseware-billing.md §2.3, §4 document list statuses): 10 a page with 'load more',
 * status, upload time, download, delete (parsed or failed only, with its confirm), upload from here,
 * open in one of the person's open rooms. Statuses follow the user channel as conversions run.
 */
export default function ProfileBook() {
  const { t } = useTranslation();
  const confirm = useConfirm();
  const [docs, setDocs] = useState<DocumentInfo[] | null>(null);
  const [total, setTotal] = useState(0);
  const [pageNo, setPageNo] = useState(1);
  const [loadingMore, setLoadingMore] = useState(false);
  const [busyId, setBusyId] = useState('');
  const [openDoc, setOpenDoc] = useState<DocumentInfo | null>(null);
  const docsRef = useRef(docs);
  // The latest list for the polling callbacks.
  useLayoutEffect(() => {
    docsRef.current = docs;
  });

  // The list changes once the answer is here, never while an effect runs.
  const loadFirst = useCallback(
    () =>
      cwApi('getMyDocumentList', { pageNo: 1, pageSize: DOCUMENT_PAGE_SIZE }, { quietNetworkError: true }).then((answer) => {
        if (!isOk(answer)) {
          toast.error(t('courseware.library.loadFailed'));
          setDocs((d) => d ?? []);
          return;
        }
        setDocs((prev) => merge(answer.data.documentList, prev ?? []));
        setTotal(answer.data.total);
      }),
    [t],
  );
  useEffect(() => void loadFirst(), [loadFirst]);

  const uploader = useUploader({ allowVideo: false, onRegistered: () => void loadFirst() });

  // Live statuses: a new document at the top, status changes in place (matched by task or document).
  const upsert = useCallback((doc: DocumentInfo, isNew: boolean) => {
    setDocs((prev) => {
      const list = prev ?? [];
      const at = list.findIndex((d) => d.documentId === doc.documentId || (doc.taskId && d.taskId === doc.taskId));
      if (at < 0) {
        if (!isNew) return list;
        setTotal((n) => n + 1);
        return [doc, ...list];
      }
      const next = [...list];
      next[at] = { ...list[at]!, ...doc };
      return next;
    });
  }, []);
  const { convertEvent } = uploader;
  useUserEvents({
    addDocumentConvertEvent: ({ document }) => upsert({ ...document, status: document.status === 0 ? 1 : document.status }, true),
    documentStatus: ({ document }) => {
      upsert(document, false);
      convertEvent(convertStepOfDocument(document));
    },
  });

  const loadMore = async () => {
    setLoadingMore(true);
    const next = pageNo + 1;
    const answer = await cwApi('getMyDocumentList', { pageNo: next, pageSize: DOCUMENT_PAGE_SIZE }, { quietNetworkError: true });
    setLoadingMore(false);
    if (!isOk(answer)) return void toast.error(t('courseware.library.loadFailed'));
    setPageNo(next);
    setDocs((prev) => merge(prev ?? [], answer.data.documentList));
    setTotal(answer.data.total);
  };

  const download = async (doc: DocumentInfo) => {
    setBusyId(doc.documentId);
    const answer = await cwApi('getDocumentDownloadUrl', { documentId: doc.documentId });
    setBusyId('');
    if (!isOk(answer)) return toastError(answer, t('courseware.upload.failed'));
    const a = document.createElement('a');
    a.href = answer.data.url;
    a.download = doc.documentName;
    a.rel = 'noopener';
    document.body.append(a);
    a.click();
    a.remove();
  };

  const remove = async (doc: DocumentInfo) => {
    if (!(await confirm({ message: t('courseware.library.deleteConfirm'), confirmText: t('common.confirm') }))) return;
    setBusyId(doc.documentId);
    const answer = await cwApi('delUserDocument', { taskId: doc.taskId, documentId: doc.documentId });
    setBusyId('');
    if (answer.code !== '0') return toastError(answer, t('courseware.library.loadFailed'));
    setDocs((prev) => (prev ?? []).filter((d) => d.documentId !== doc.documentId));
    setTotal((n) => Math.max(0, n - 1));
    toast.success(t('courseware.library.deleted'));
  };

  const hasMore = docs !== null && docs.length < total;
  return (
    <section className="stack" aria-labelledby="book-title" data-testid="library">
      <div className="cw-library__head">
        <h1 id="book-title">{t('courseware.library.title')}</h1>
        <Link to={helpPath('courseware')} data-testid="cw-guideline">
          {t('courseware.library.guideline')}
        </Link>
      </div>
      <UploadBox uploader={uploader} allowVideo={false} variant="library" />
      {docs === null ? (
        <p className="muted" role="status" aria-busy="true">
          <span className="spinner" aria-hidden="true" /> {t('common.loading')}
        </p>
      ) : docs.length === 0 ? (
        <div className="card cw-library__empty" data-testid="library-empty">
          <p className="muted">{t('courseware.library.empty')}</p>
        </div>
      ) : (
        <table className="cw-library__table" aria-labelledby="book-title">
          <thead>
            <tr>
              <th scope="col">{t('courseware.library.name')}</th>
              <th scope="col">{t('courseware.library.status')}</th>
              <th scope="col">{t('courseware.library.time')}</th>
              <th scope="col">{t('courseware.library.actions')}</th>
            </tr>
          </thead>
          <tbody>
            {docs.map((d) => (
              <tr key={d.documentId} data-testid="library-row" data-document-id={d.documentId} data-status={d.status}>
                <td className="cw-library__name" title={d.documentName}>
                  {d.documentName} <span className="muted">· {formatSize(d.size)}</span>
                </td>
                <td>
                  <StatusText status={d.status} />
                </td>
                <td>
                  <LocalTime at={d.createTime} />
                </td>
                <td>
                  <div className="cw-library__ops">
                    <button
                      type="button"
                      className="cw-link"
                      disabled={busyId === d.documentId}
                      onClick={() => void download(d)}
                      data-testid="library-download"
                    >
                      {t('courseware.library.download')}
                    </button>
                    {d.status === 3 ? (
                      <button type="button" className="cw-link" onClick={() => setOpenDoc(d)} data-testid="library-open">
                        {t('courseware.library.openInRoom')}
                      </button>
                    ) : null}
                    {d.status === 3 || d.status === 4 ? (
                      <button
                        type="button"
                        className="cw-link"
                        disabled={busyId === d.documentId}
                        onClick={() => void remove(d)}
                        data-testid="library-delete"
                      >
                        {t('courseware.library.delete')}
                      </button>
                    ) : null}
                  </div>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      {hasMore ? (
        <div>
          <Button variant="secondary" loading={loadingMore} onClick={() => void loadMore()} data-testid="library-more">
            {t('courseware.library.loadMore')}
          </Button>
        </div>
      ) : null}
      {openDoc ? <OpenInRoom doc={openDoc} onClose={() => setOpenDoc(null)} /> : null}
    </section>
  );
}

/** 'Open in a room': one of the person's open classrooms that has a document view. */
function OpenInRoom({ doc, onClose }: { doc: DocumentInfo; onClose: () => void }) {
  const { t } = useTranslation();
  const [rooms, setRooms] = useState<RoomListItem[] | null>(null);
  const [busy, setBusy] = useState('');
  const [opened, setOpened] = useState<RoomListItem | null>(null);
  // RETRY of the 'network exception' message reads the list again (ADR 102).
  const [reads, setReads] = useState(0);
  useEffect(() => {
    let alive = true;
    void api('getMyRoomList', { pageSize: 10 }, { onRetry: () => setReads((n) => n + 1) }).then((answer) => {
      if (!alive) return;
      // A whiteboard class always shows its board: it has no document view.
      setRooms(isOk(answer) ? answer.data.roomList.filter((r) => r.state === 'open' && r.roomType !== 2) : []);
    });
    return () => {
      alive = false;
    };
  }, [reads]);
  const open = async (room: RoomListItem) => {
    setBusy(room.roomNumber);
    const answer = await cwApi('analysisDocumentExisting', { documentId: doc.documentId, roomNumber: room.roomNumber });
    setBusy('');
    if (!isOk(answer)) return toastError(answer, t('courseware.openFailed'));
    setOpened(room);
    toast.success(t('courseware.library.opened', { room: room.roomNumber }));
  };
  return (
    <Dialog title={t('courseware.library.openTitle', { name: doc.documentName })} onClose={onClose}>
      {rooms === null ? (
        <p className="muted" role="status">
          <span className="spinner" aria-hidden="true" /> {t('common.loading')}
        </p>
      ) : rooms.length === 0 ? (
        <p data-testid="library-no-rooms">{t('courseware.library.noRooms')}</p>
      ) : (
        <>
          <p className="muted">{t('courseware.library.openHint')}</p>
          <ul className="stack" data-testid="library-rooms">
            {rooms.map((r) => (
              <li key={r.roomNumber} className="cw-library__ops">
                <Button variant="secondary" loading={busy === r.roomNumber} onClick={() => void open(r)}>
                  {r.roomNumber}
                </Button>
                {opened?.roomNumber === r.roomNumber ? (
                  <a className="btn btn--primary" href={new URL(r.inviteUrl).pathname}>
                    {t('courseware.library.goRoom')}
                  </a>
                ) : null}
              </li>
            ))}
          </ul>
        </>
      )}
    </Dialog>
  );
}
