import { useCallback, useEffect, useId, useRef, useState, type KeyboardEvent } from 'react';
import { useTranslation } from 'react-i18next';
import { useSearchParams } from 'react-router';
import { useUserEvents } from '#app/billing/useUserEvents.ts';
import { Button } from '#app/components/Button.tsx';
import { Dialog, useConfirm } from '#app/components/Dialog.tsx';
import { LocalTime } from '#app/components/LocalTime.tsx';
import { api, isOk } from '#app/lib/api.ts';
import { copyText } from '#app/lib/clipboard.ts';
import { toast } from '#app/lib/toast.ts';
import { downloadFileName, RECORD_PAGE_SIZE, type RecordRow, type RecordType } from '#core/contracts/recording.ts';
import { appendPage, formatDuration, formatRecordSize, nextCursor, refreshFirstPage } from './format.ts';
import './recordings.css';

const TABS: ReadonlyArray<{ type: RecordType; param: string; label: 'record.library.tabClass' | 'record.library.tabStudio' }> = [
  { type: 2, param: 'class', label: 'record.library.tabClass' },
  { type: 1, param: 'studio', label: 'record.library.tabStudio' },
];

/** The tab a `?type=` address asks for; the class recordings (type 2, docs/product/decisions.md) by default. */
export function tabOf(param: string | null): RecordType {
  return TABS.find((t) => t.param === param)?.type ?? 2;
}

/**
 * The recordings library (docs/product/03-board-courseware-billing.md §2.4): class recordings and
 * studio recordings in two tabs, 10 a page with 'load more', play, share, download and delete.
 * A recording that finishes while the page is open appears at once (the user channel's roomRecord).
 */
export function RecordLibrary() {
  const { t } = useTranslation();
  const [params, setParams] = useSearchParams();
  const type = tabOf(params.get('type'));
  const tabRefs = useRef<Array<HTMLButtonElement | null>>([]);
  // One user-channel socket for the page (not one per tab): a listed MP4 bumps the open list.
  const [listed, setListed] = useState(0);
  useUserEvents({ roomRecord: () => setListed((n) => n + 1), studioRecord: () => setListed((n) => n + 1) });

  const setType = (next: RecordType) => {
    setParams(
      (prev) => {
        prev.set('type', TABS.find((x) => x.type === next)!.param);
        return prev;
      },
      { replace: true, preventScrollReset: true },
    );
  };
  const onTabKey = (event: KeyboardEvent) => {
    if (event.key !== 'ArrowLeft' && event.key !== 'ArrowRight') return;
    const at = TABS.findIndex((x) => x.type === type);
    const next = (at + (event.key === 'ArrowRight' ? 1 : TABS.length - 1)) % TABS.length;
    setType(TABS[next]!.type);
    tabRefs.current[next]?.focus();
  };

  return (
    <section className="stack" aria-labelledby="record-title" data-testid="records">
      <h1 id="record-title">{t('record.library.title')}</h1>
      <div className="rec-tabs" role="tablist" aria-label={t('record.library.tabs')} onKeyDown={onTabKey}>
        {TABS.map((x, i) => (
          <button
            key={x.type}
            ref={(el) => {
              tabRefs.current[i] = el;
            }}
            type="button"
            role="tab"
            id={`rec-tab-${x.param}`}
            aria-selected={type === x.type}
            aria-controls="rec-panel"
            tabIndex={type === x.type ? 0 : -1}
            className="rec-tabs__tab"
            data-testid={`records-tab-${x.param}`}
            onClick={() => setType(x.type)}
          >
            {t(x.label)}
          </button>
        ))}
      </div>
      <div id="rec-panel" role="tabpanel" aria-labelledby={`rec-tab-${TABS.find((x) => x.type === type)!.param}`}>
        {/* A tab is its own list: switching starts from its first page. */}
        <RecordList key={type} type={type} listed={listed} />
      </div>
    </section>
  );
}

function failed(t: (k: 'record.library.failed') => string): void {
  toast.error(t('record.library.failed'));
}

function RecordList({ type, listed }: { type: RecordType; listed: number }) {
  const { t } = useTranslation();
  const confirm = useConfirm();
  const [rows, setRows] = useState<RecordRow[] | null>(null);
  const [total, setTotal] = useState(0);
  const [loadingMore, setLoadingMore] = useState(false);
  const [busy, setBusy] = useState('');
  const [playing, setPlaying] = useState<{ row: RecordRow; url: string; poster?: string | undefined } | null>(null);
  const [sharing, setSharing] = useState<{ row: RecordRow; url: string; expiresAt: number } | null>(null);

  // The first page, merged with what is shown (a live refresh keeps the pages already loaded).
  // The list changes once the answer is here, never while an effect runs.
  const loadFirst = useCallback(
    (signal?: AbortSignal) =>
      api('getRecordList', { recordType: type, pageSize: RECORD_PAGE_SIZE }, { quietNetworkError: true, signal }).then((answer) => {
        if (signal?.aborted) return;
        if (!isOk(answer)) {
          failed(t);
          setRows((r) => r ?? []);
          return;
        }
        setRows((prev) => refreshFirstPage(prev ?? [], answer.data.recordList, RECORD_PAGE_SIZE));
        setTotal(answer.data.total);
      }),
    [type, t],
  );
  // The first page on arrival, and again whenever a recording is listed (`listed` counts them).
  useEffect(() => {
    const abort = new AbortController();
    void loadFirst(abort.signal);
    return () => abort.abort();
  }, [loadFirst, listed]);

  const loadMore = async () => {
    if (!rows) return;
    setLoadingMore(true);
    const pageTime = nextCursor(rows);
    const answer = await api(
      'getRecordList',
      { recordType: type, pageSize: RECORD_PAGE_SIZE, ...(pageTime ? { pageTime } : {}) },
      { quietNetworkError: true },
    );
    setLoadingMore(false);
    if (!isOk(answer)) return failed(t);
    setRows((prev) => appendPage(prev ?? [], answer.data.recordList));
    setTotal(answer.data.total);
  };

  const fileUrl = async (row: RecordRow, download: boolean): Promise<{ fileUrl: string; posterUrl?: string | undefined } | null> => {
    setBusy(row.fileId);
    const answer = await api(
      'getRecordFileUrl',
      { fileId: row.fileId, ...(row.taskId ? { taskId: row.taskId } : {}), ...(download ? { download: true } : {}) },
      { quietNetworkError: true },
    );
    setBusy('');
    if (!isOk(answer)) {
      failed(t);
      return null;
    }
    return answer.data;
  };

  const play = async (row: RecordRow) => {
    const urls = await fileUrl(row, false);
    if (urls) setPlaying({ row, url: urls.fileUrl, poster: urls.posterUrl });
  };

  const download = async (row: RecordRow) => {
    const urls = await fileUrl(row, true);
    if (!urls) return;
    // The signed link asks for an attachment with the file name: the page stays.
    const a = document.createElement('a');
    a.href = urls.fileUrl;
    // The library holds MP4s (recordings, and studio videos once made): the name ends in .mp4 whatever was typed.
    a.download = downloadFileName(row.fileName, 'mp4');
    a.rel = 'noopener';
    document.body.append(a);
    a.click();
    a.remove();
  };

  const share = async (row: RecordRow) => {
    setBusy(row.fileId);
    const answer = await api('createRecordShareLink', { fileId: row.fileId }, { quietNetworkError: true });
    setBusy('');
    if (!isOk(answer)) return void toast.error(t('record.library.shareFailed'));
    setSharing({ row, url: answer.data.url, expiresAt: answer.data.expiresAt });
  };

  const remove = async (row: RecordRow) => {
    const ok = await confirm({
      title: t('record.library.deleteTitle'),
      message: t('record.library.deleteText', { name: row.fileName }),
      confirmText: t('record.library.delete'),
    });
    if (!ok) return;
    setBusy(row.fileId);
    const answer = await api('delRecord', { fileId: row.fileId }, { quietNetworkError: true });
    setBusy('');
    if (answer.code !== '0') return failed(t);
    setRows((prev) => (prev ?? []).filter((r) => r.fileId !== row.fileId));
    setTotal((n) => Math.max(0, n - 1));
    toast.success(t('record.library.deleted'));
  };

  if (rows === null) {
    return (
      <p className="muted" role="status" aria-busy="true">
        <span className="spinner" aria-hidden="true" /> {t('common.loading')}
      </p>
    );
  }
  if (rows.length === 0) {
    return (
      <div className="card rec-empty" data-testid="records-empty">
        <p className="muted">{type === 2 ? t('record.library.emptyClass') : t('record.library.emptyStudio')}</p>
      </div>
    );
  }
  return (
    <div className="stack">
      <table className="rec-table" aria-labelledby="record-title">
        <thead>
          <tr>
            <th scope="col">{t('record.library.name')}</th>
            <th scope="col">{t('record.library.size')}</th>
            <th scope="col">{t('record.library.time')}</th>
            <th scope="col">{t('record.library.actions')}</th>
          </tr>
        </thead>
        <tbody>
          {rows.map((row) => {
            const size = formatRecordSize(row.fileSize);
            const duration = formatDuration(row.durationMs);
            const ready = size !== null;
            const rowBusy = busy === row.fileId;
            return (
              <tr key={row.fileId} className="rec-row" data-testid="record-row" data-file-id={row.fileId} data-ready={ready}>
                <td className="rec-row__name" title={row.fileName}>
                  <span className="rec-row__title">{row.fileName}</span>
                  {duration ? <span className="muted rec-row__duration"> · {duration}</span> : null}
                </td>
                <td className="rec-row__size">
                  {ready ? (
                    size
                  ) : row.failed ? (
                    <span className="rec-row__failed" role="status" data-testid="record-failed">
                      {t('record.library.unmade')}
                    </span>
                  ) : (
                    <span className="rec-row__transcoding" role="status" data-testid="record-transcoding">
                      <span className="spinner" aria-hidden="true" /> {t('record.library.transcoding')}
                    </span>
                  )}
                </td>
                <td className="rec-row__time muted">
                  <LocalTime at={row.createTime} />
                </td>
                <td className="rec-row__ops">
                  <div className="rec-ops">
                    <button
                      type="button"
                      className="rec-op"
                      disabled={!ready || rowBusy}
                      onClick={() => void play(row)}
                      aria-label={`${t('record.library.play')} ${row.fileName}`}
                      data-testid="record-play"
                    >
                      {t('record.library.play')}
                    </button>
                    <button
                      type="button"
                      className="rec-op"
                      disabled={!ready || rowBusy}
                      onClick={() => void share(row)}
                      aria-label={`${t('record.library.share')} ${row.fileName}`}
                      data-testid="record-share"
                    >
                      {t('record.library.share')}
                    </button>
                    <button
                      type="button"
                      className="rec-op"
                      disabled={!ready || rowBusy}
                      onClick={() => void download(row)}
                      aria-label={`${t('record.library.download')} ${row.fileName}`}
                      data-testid="record-download"
                    >
                      {t('record.library.download')}
                    </button>
                    <button
                      type="button"
                      className="rec-op rec-op--danger"
                      disabled={rowBusy}
                      onClick={() => void remove(row)}
                      aria-label={`${t('record.library.delete')} ${row.fileName}`}
                      data-testid="record-delete"
                    >
                      {t('record.library.delete')}
                    </button>
                  </div>
                </td>
              </tr>
            );
          })}
        </tbody>
      </table>
      <div className="rec-more">
        <span className="muted" data-testid="records-total">
          {t('record.library.total', { n: total })}
        </span>
        {rows.length < total ? (
          <Button variant="secondary" loading={loadingMore} onClick={() => void loadMore()} data-testid="records-more">
            {t('record.library.loadMore')}
          </Button>
        ) : null}
      </div>
      {playing ? (
        <PlayerDialog name={playing.row.fileName} url={playing.url} poster={playing.poster} onClose={() => setPlaying(null)} />
      ) : null}
      {sharing ? (
        <ShareDialog name={sharing.row.fileName} url={sharing.url} expiresAt={sharing.expiresAt} onClose={() => setSharing(null)} />
      ) : null}
    </div>
  );
}

/** The video popup: the signed file URL in a native player (the store answers range requests, so seeking works). */
export function PlayerDialog({
  name,
  url,
  poster,
  onClose,
}: {
  name: string;
  url: string;
  /** The poster frame shown until the video plays (studio recordings have one). */
  poster?: string | undefined;
  onClose: () => void;
}) {
  const { t } = useTranslation();
  const [broken, setBroken] = useState(false);
  return (
    <Dialog
      title={name}
      onClose={onClose}
      className="rec-player"
      actions={
        <button type="button" className="btn btn--secondary" onClick={onClose}>
          {t('record.player.close')}
        </button>
      }
    >
      <video
        className="rec-video"
        src={url}
        poster={poster}
        controls
        playsInline
        preload="metadata"
        onError={() => setBroken(true)}
        data-testid="record-video"
      />
      {broken ? (
        <p className="rec-player__error" role="alert">
          {t('record.player.unplayable')}
        </p>
      ) : null}
    </Dialog>
  );
}

/** The share popup: the watch link (no account needed), a copy button and when the link stops working. */
function ShareDialog({ name, url, expiresAt, onClose }: { name: string; url: string; expiresAt: number; onClose: () => void }) {
  const { t } = useTranslation();
  const linkId = useId();
  const copy = async () => {
    if (await copyText(url)) toast.success(t('classroom.copySuccess'));
    else toast.error(t('classroom.copyError'));
  };
  return (
    <Dialog
      title={t('record.share.title')}
      onClose={onClose}
      className="rec-share"
      actions={
        <>
          <button type="button" className="btn btn--ghost" onClick={onClose}>
            {t('common.close')}
          </button>
          <button type="button" className="btn btn--primary" onClick={() => void copy()} data-testid="record-share-copy" autoFocus>
            {t('record.share.copy')}
          </button>
        </>
      }
    >
      <p className="rec-share__name">{name}</p>
      <p className="muted">{t('record.share.hint')}</p>
      <label htmlFor={linkId} className="visually-hidden">
        {t('record.share.link')}
      </label>
      <input
        id={linkId}
        className="input rec-share__link"
        readOnly
        value={url}
        onFocus={(e) => e.currentTarget.select()}
        data-testid="record-share-url"
      />
      <p className="muted" data-testid="record-share-expiry">
        {t('record.share.expires')} <LocalTime at={expiresAt} />
      </p>
    </Dialog>
  );
}
