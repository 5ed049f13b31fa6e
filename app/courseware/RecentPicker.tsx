/**
 * The recent documents picker (docs/product/03-board-courseware-billing.md §2.1, §9): the creator's library, 8 a page, with each
 * document's status; a converted one opens in the room (`analysisDocumentExisting`). The choice is
 * confirmed 300 ms after the last pick, so a double click opens one document once.
 */
import { useCallback, useEffect, useRef, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { RECENT_DOCUMENTS_PAGE_SIZE, type DocumentInfo, type RoomCourseware } from '#core/contracts/courseware.ts';
import { Dialog } from '#app/components/Dialog.tsx';
import { isOk } from '#app/lib/api.ts';
import { currentLang } from '#app/lib/lang.ts';
import { codeMessage } from '#app/lib/messages.ts';
import { toast } from '#app/lib/toast.ts';
import { cwApi } from './net.ts';
import { ChevronLeft, ChevronRight, FileText, FileVideo } from 'lucide-react';

export const SELECT_DEBOUNCE_MS = 300;

export function StatusText({ status }: { status: number }) {
  const { t } = useTranslation();
  const key = status === 1 || status === 2 || status === 3 || status === 4 ? status : 0;
  return (
    <span className={`cw-status cw-status--${key}`} data-testid="cw-status" data-status={key}>
      {t(`courseware.status.s${key}`)}
    </span>
  );
}

export function RecentPicker({
  roomNumber,
  onOpened,
  onClose,
}: {
  roomNumber: string;
  onOpened: (cw: RoomCourseware) => void;
  onClose: () => void;
}) {
  const { t } = useTranslation();
  const [pageNo, setPageNo] = useState(1);
  const [loaded, setLoaded] = useState<{ pageNo: number; documents: DocumentInfo[]; total: number } | null>(null);
  // The list of the page asked for; null while it loads.
  const list = loaded?.pageNo === pageNo ? loaded : null;
  const [picked, setPicked] = useState<string>('');
  const [busy, setBusy] = useState(false);
  const timer = useRef<ReturnType<typeof setTimeout> | null>(null);

  useEffect(() => {
    let alive = true;
    void cwApi('getMyDocumentList', { pageNo, pageSize: RECENT_DOCUMENTS_PAGE_SIZE }).then((answer) => {
      if (!alive) return;
      if (isOk(answer)) setLoaded({ pageNo, documents: answer.data.documentList, total: answer.data.total });
      else setLoaded({ pageNo, documents: [], total: 0 });
    });
    return () => {
      alive = false;
    };
  }, [pageNo]);
  useEffect(
    () => () => {
      if (timer.current) clearTimeout(timer.current);
    },
    [],
  );

  const open = useCallback(
    (documentId: string) => {
      if (timer.current) clearTimeout(timer.current);
      timer.current = setTimeout(() => {
        timer.current = null;
        setBusy(true);
        void cwApi('analysisDocumentExisting', { documentId, roomNumber }).then((answer) => {
          setBusy(false);
          if (isOk(answer)) onOpened(answer.data.courseware);
          else if (answer.code !== 'network')
            toast.error(answer.msg || codeMessage(answer.code, currentLang()) || t('courseware.openFailed'));
        });
      }, SELECT_DEBOUNCE_MS);
    },
    [roomNumber, onOpened, t],
  );

  const pages = list ? Math.max(1, Math.ceil(list.total / RECENT_DOCUMENTS_PAGE_SIZE)) : 1;
  return (
    <Dialog
      title={t('courseware.recent.title')}
      onClose={onClose}
      className="cw-recent"
      actions={
        <>
          <button type="button" className="btn btn--ghost" onClick={onClose}>
            {t('common.cancel')}
          </button>
          <button
            type="button"
            className="btn btn--primary"
            disabled={!picked || busy}
            onClick={() => open(picked)}
            data-testid="cw-recent-open"
          >
            {busy ? <span className="spinner" aria-hidden="true" /> : null} {t('courseware.recent.open')}
          </button>
        </>
      }
    >
      {list === null ? (
        <p className="muted" role="status" aria-busy="true">
          <span className="spinner" aria-hidden="true" /> {t('common.loading')}
        </p>
      ) : list.documents.length === 0 ? (
        <p className="muted" data-testid="cw-recent-empty">
          {t('courseware.recent.empty')}
        </p>
      ) : (
        <ul className="cw-recent__grid" role="listbox" aria-label={t('courseware.recent.title')}>
          {list.documents.map((d) => {
            const usable = d.status === 3;
            return (
              <li key={d.documentId}>
                <button
                  type="button"
                  role="option"
                  aria-selected={picked === d.documentId}
                  className={`cw-recent__item${picked === d.documentId ? ' cw-recent__item--on' : ''}`}
                  disabled={!usable}
                  onClick={() => setPicked(d.documentId)}
                  onDoubleClick={() => open(d.documentId)}
                  data-testid="cw-recent-item"
                >
                  <span className="cw-recent__icon" aria-hidden="true">
                    {d.documentType === 3 ? <FileVideo size={18} /> : <FileText size={18} />}
                  </span>
                  <span className="cw-recent__name" title={d.documentName}>
                    {d.documentName}
                  </span>
                  <StatusText status={d.status} />
                </button>
              </li>
            );
          })}
        </ul>
      )}
      {pages > 1 ? (
        <div className="cw-recent__pages" role="group" aria-label={t('courseware.recent.pages')}>
          <button
            type="button"
            className="btn btn--ghost btn--small"
            disabled={pageNo <= 1}
            onClick={() => setPageNo(pageNo - 1)}
            aria-label={t('board.tools.prev')}
            title={t('board.tools.prev')}
          >
            <ChevronLeft size={18} aria-hidden="true" />
          </button>
          <span>
            {pageNo}/{pages}
          </span>
          <button
            type="button"
            className="btn btn--ghost btn--small"
            disabled={pageNo >= pages}
            onClick={() => setPageNo(pageNo + 1)}
            aria-label={t('board.tools.next')}
            title={t('board.tools.next')}
          >
            <ChevronRight size={18} aria-hidden="true" />
          </button>
        </div>
      ) : null}
    </Dialog>
  );
}
