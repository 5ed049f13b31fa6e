/**
 * The courseware panel of the classroom (docs/product/03-board-courseware-billing.md §2.1, showState 'ppt'): default (the creator's
 * upload area and recent documents), uploading, holdon (everyone else while nothing is shown),
 * loaded (the slide with its own board layer on top, the creator's paging, scroll and close) and
 * video. Each slide draws on `doc:{documentId}:{page}`, so strokes stay on their slide.
 */
import { useCallback, useEffect, useMemo, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { ChevronDown, ChevronLeft, ChevronRight, ChevronUp } from 'lucide-react';
import './courseware.css';
import type { RoomInfo } from '#core/contracts/api.ts';
import { BOARD_HEIGHT, BOARD_WIDTH } from '#core/contracts/board.ts';
import { SLIDE_SCROLL_MAX, slideLayer } from '#core/contracts/courseware.ts';
import type { Role, RoomPatch } from '#core/contracts/room-events.ts';
import { BoardView } from '#app/board/BoardView.tsx';
import type { ChannelStatus, CoursewareChannel } from '#app/classroom/useRoomChannel.ts';
import { useConfirm } from '#app/components/Dialog.tsx';
import { toast } from '#app/lib/toast.ts';
import { cwApi } from './net.ts';
import { coursewareView, isPortrait, NO_COURSEWARE, slideOffset, stepScroll } from '#core/courseware/paging.ts';
import { RecentPicker } from './RecentPicker.tsx';
import { Progress, UploadBox } from './UploadBox.tsx';
import { useRoomCourseware } from './useRoomCourseware.ts';
import { useSlideImage } from './useSlideImage.ts';
import { useUploader } from './useUploader.ts';
import { VideoCourseware } from './VideoCourseware.tsx';

export interface CoursewarePanelProps {
  roomNumber: string;
  myId: string;
  role: Role;
  room: Pick<RoomInfo, 'roomType' | 'wbPower' | 'roomExtend' | 'createUser'>;
  wbtoken: string;
  phone: boolean;
  channel: CoursewareChannel;
  status: ChannelStatus;
  clockSkew: number;
  onPatch?: (patch: RoomPatch) => Promise<boolean>;
}

export function CoursewarePanel(props: CoursewarePanelProps) {
  const { t } = useTranslation();
  const confirm = useConfirm();
  const isCreator = props.role === 'creator';
  const [recentOpen, setRecentOpen] = useState(false);
  /** The last conversion step of the shown document (everyone sees the deck fill up). */
  const [convert, setConvert] = useState<{ documentId: string; done: number; total: number } | null>(null);

  const uploader = useUploader({
    roomNumber: props.roomNumber,
    allowVideo: true,
    onRegistered: (r) => {
      // The room channel already showed it; a conversion that ended before this answer arrived
      // (done, or failed and closed by the server) is newer than the answer's courseware.
      if (r.courseware && r.status !== 2 && r.status !== 3 && r.status !== 4) room.replace(r.courseware);
    },
  });
  const room = useRoomCourseware({
    roomNumber: props.roomNumber,
    channel: props.channel,
    status: props.status,
    isCreator,
    myId: props.myId,
    onConvert: (step) => {
      uploader.convertEvent(step);
      setConvert({ documentId: step.documentId, done: step.done, total: step.total });
    },
    onMyConvertFailed: () => {
      if (uploader.phase.kind !== 'converting') toast.error(t('courseware.parseFailed'));
    },
  });
  const { cw, page, scroll } = room;
  const uploading = uploader.phase.kind !== 'idle';
  const view = coursewareView(cw, isCreator, uploading);
  const total = cw.images.length;
  const convertTotal = convert && convert.documentId === cw.documentId ? convert.total : 0;
  const convertDone = convert && convert.documentId === cw.documentId ? convert.done : 0;
  const size = cw.sizes[page - 1];
  const portrait = isPortrait(size);
  const imageUrl = view === 'loaded' ? (cw.images[page - 1] ?? '') : '';
  const preload = useMemo(() => [cw.images[page] ?? '', cw.images[page - 2] ?? ''].filter(Boolean), [cw.images, page]);
  const slide = useSlideImage(imageUrl, room.refetch, preload);

  const offsetY =
    slide.status === 'ready'
      ? slideOffset({ width: slide.image.naturalWidth, height: slide.image.naturalHeight }, scroll, BOARD_WIDTH, BOARD_HEIGHT)
      : 0;
  const backdrop = useMemo(() => (slide.status === 'ready' ? { image: slide.image, offsetY } : null), [slide, offsetY]);
  const maxOffset =
    slide.status === 'ready' && portrait
      ? Math.max(0, (BOARD_WIDTH * slide.image.naturalHeight) / slide.image.naturalWidth - BOARD_HEIGHT)
      : 0;

  // The creator's keys: PageUp / PageDown turn pages (arrows stay with the board and the page).
  const { goPage } = room;
  useEffect(() => {
    if (!isCreator || view !== 'loaded') return;
    const onKey = (e: KeyboardEvent) => {
      const el = e.target as HTMLElement | null;
      if (el && (el.tagName === 'INPUT' || el.tagName === 'TEXTAREA' || el.isContentEditable)) return;
      if (document.querySelector('dialog[open]')) return;
      if (e.key === 'PageDown') goPage(page + 1);
      else if (e.key === 'PageUp') goPage(page - 1);
      else return;
      e.preventDefault();
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, [isCreator, view, page, goPage]);

  const close = useCallback(async () => {
    if (!(await confirm({ message: t('courseware.closeConfirm') }))) return;
    const answer = await cwApi('closeRoomDocument', { roomNumber: props.roomNumber });
    if (answer.code === '0') room.replace(NO_COURSEWARE);
    else if (answer.code !== 'network') toast.error(answer.msg || t('courseware.closeFailed'));
  }, [confirm, props.roomNumber, room, t]);

  // A portrait page scrolls (the creator's buttons; everyone else sees where it is): in the bar, off the slide.
  const scrollGroup =
    view === 'loaded' && portrait ? (
      <div className="cw-scroll" role="group" aria-label={t('courseware.scroll.label')}>
        <button
          type="button"
          className="board-tool"
          disabled={!isCreator || scroll <= 0}
          onClick={() => room.setScroll(stepScroll(scroll, -1))}
          aria-label={t('courseware.scroll.up')}
          title={t('courseware.scroll.up')}
          data-testid="cw-scroll-up"
        >
          <ChevronUp size={18} aria-hidden="true" />
        </button>
        <button
          type="button"
          className="board-tool"
          disabled={!isCreator || scroll >= SLIDE_SCROLL_MAX || offsetY >= maxOffset}
          onClick={() => room.setScroll(stepScroll(scroll, 1))}
          aria-label={t('courseware.scroll.down')}
          title={t('courseware.scroll.down')}
          data-testid="cw-scroll-down"
        >
          <ChevronDown size={18} aria-hidden="true" />
        </button>
      </div>
    ) : null;

  let body;
  if (view === 'video') {
    body = (
      <VideoCourseware
        key={cw.documentId}
        url={cw.videoUrl}
        poster={cw.images[0] ?? ''}
        name={cw.documentName}
        isCreator={isCreator}
        channel={props.channel}
        clockSkew={props.clockSkew}
        initial={cw.video ?? null}
        onExpired={room.refetch}
      />
    );
  } else if (view === 'loaded') {
    body = (
      <div
        className="cw-slide"
        data-testid="courseware-loaded"
        data-page={page}
        data-total={total}
        data-scroll={scroll}
        data-slide-ready={slide.status === 'ready' ? '1' : '0'}
        data-slide-src={slide.status === 'none' ? '' : slide.url}
      >
        <BoardView
          roomNumber={props.roomNumber}
          myId={props.myId}
          role={props.role}
          room={props.room}
          wbtoken={props.wbtoken}
          phone={props.phone}
          onPatch={props.onPatch}
          slide={{ layer: slideLayer(cw.documentId, page), backdrop }}
        />
        {slide.status !== 'ready' ? (
          <div className="cw-slide__loading" role="status" aria-busy={slide.status === 'loading'}>
            {slide.status === 'failed' ? t('courseware.imageFailed') : <span className="spinner" aria-hidden="true" />}
          </div>
        ) : null}
        {cw.status === 1 ? (
          <div className="cw-slide__converting">
            <Progress
              label={
                convertTotal > 0
                  ? t('courseware.upload.convertingPages', { done: Math.max(convertDone, cw.images.length), total: convertTotal })
                  : t('courseware.upload.converting')
              }
              value={convertTotal > 0 ? Math.min(100, Math.floor((Math.max(convertDone, cw.images.length) / convertTotal) * 100)) : null}
              testId="cw-convert-progress"
            />
          </div>
        ) : null}
      </div>
    );
  } else if (view === 'holdon') {
    body = (
      <div className="cw-holdon stack center" data-testid="courseware-holdon">
        <span className="spinner" aria-hidden="true" />
        <p>{t('courseware.holdon')}</p>
      </div>
    );
  } else {
    body = (
      <div className="cw-default stack center">
        {view === 'uploading' && uploader.phase.kind === 'idle' ? (
          // A document is being prepared that this page did not upload (after a reload): wait for its first page.
          <Progress
            label={
              convertTotal > 0
                ? t('courseware.upload.convertingPages', { done: convertDone, total: convertTotal })
                : t('courseware.upload.converting')
            }
            value={convertTotal > 0 ? Math.min(100, Math.floor((convertDone / convertTotal) * 100)) : null}
            testId="cw-convert-progress"
          />
        ) : (
          <UploadBox uploader={uploader} allowVideo variant="room" />
        )}
        {view === 'default' && !uploading ? (
          <button type="button" className="cw-link" onClick={() => setRecentOpen(true)} data-testid="cw-recent">
            {t('courseware.recent.button')}
          </button>
        ) : null}
      </div>
    );
  }

  const showBar = isCreator && (view === 'loaded' || view === 'video');
  return (
    <div className={`courseware courseware--${view}`} data-testid="courseware" data-view={view} aria-busy={!room.loaded}>
      {showBar ? (
        <div className="cw-bar" role="toolbar" aria-label={t('courseware.bar')}>
          <span className="cw-bar__name" title={cw.documentName}>
            {cw.documentName}
          </span>
          {view === 'loaded' ? (
            <span className="cw-bar__pages">
              <button
                type="button"
                className="board-tool"
                onClick={() => room.goPage(page - 1)}
                disabled={page <= 1}
                aria-label={t('courseware.prev')}
                title={t('courseware.prev')}
                data-testid="cw-prev"
              >
                <ChevronLeft size={18} aria-hidden="true" />
              </button>
              <span data-testid="cw-counter" aria-live="polite">
                {page}/{total}
              </span>
              <button
                type="button"
                className="board-tool"
                onClick={() => room.goPage(page + 1)}
                disabled={page >= total}
                aria-label={t('courseware.next')}
                title={t('courseware.next')}
                data-testid="cw-next"
              >
                <ChevronRight size={18} aria-hidden="true" />
              </button>
            </span>
          ) : null}
          {scrollGroup}
          <button type="button" className="btn btn--ghost btn--small" onClick={() => void close()} data-testid="cw-close">
            {t('courseware.close')}
          </button>
        </div>
      ) : view === 'loaded' ? (
        <div className="cw-bar cw-bar--viewer">
          <span className="cw-bar__name" title={cw.documentName}>
            {cw.documentName}
          </span>
          <span className="cw-bar__pages" data-testid="cw-counter">
            {page}/{total}
          </span>
          {scrollGroup}
        </div>
      ) : null}
      {body}
      {recentOpen ? (
        <RecentPicker
          roomNumber={props.roomNumber}
          onClose={() => setRecentOpen(false)}
          onOpened={(next) => {
            setRecentOpen(false);
            room.replace(next);
          }}
        />
      ) : null}
    </div>
  );
}
