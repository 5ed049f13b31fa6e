/**
 * The whiteboard as the classroom shows it: the surface, the toolbar, the text editor, the
 * permission dialog, the phone-photo QR, the upload spinner, and the mask for members who may not
 * draw. Each concern is a hook of its own: paging and the room-wide settings (useBoardPaging), the
 * viewport and 'follow me' (useBoardViewport), pictures and stencils (useBoardPictures), tool state
 * (useBoardTools), the keyboard (useBoardKeys), pictures, QR and clearing (useBoardInserts), and the
 * e2e tests' observation (useBoardTestHook, test build only).
 */
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { ChevronLeft, ChevronRight, Lock } from 'lucide-react';
import './board.css';
import type { RoomInfo } from '#core/contracts/api.ts';
import { BOARD_LAST_PAGE } from '#core/contracts/board.ts';
import { TextBox } from './TextBox.tsx';
import type { Role, RoomPatch } from '#core/contracts/room-events.ts';
import { Dialog } from '#app/components/Dialog.tsx';
import { BoardCanvas } from './BoardCanvas.tsx';
import { Toolbar } from './Toolbar.tsx';
import { ZoomControl } from './ZoomControl.tsx';
import { PowerDialog } from './PowerDialog.tsx';
import { mayDraw, nextBackground } from '#core/board/draw/tools.ts';
import { useBoardSync } from './useBoardSync.ts';
import { useBoardPaging } from './useBoardPaging.ts';
import { useBoardViewport } from './useBoardViewport.ts';
import { useBoardPictures } from './useBoardPictures.ts';
import { useBoardTools } from './useBoardTools.ts';
import { useBoardKeys } from './useBoardKeys.ts';
import { useBoardInserts } from './useBoardInserts.ts';
import { useBoardTestHook } from './useBoardTestHook.ts';

export interface BoardViewProps {
  roomNumber: string;
  myId: string;
  role: Role;
  room: Pick<RoomInfo, 'roomType' | 'wbPower' | 'roomExtend' | 'createUser'>;
  wbtoken: string;
  phone: boolean;
  /** Review of a past class: pages browsable, no tools, nothing saved. */
  readOnly?: boolean;
  onPatch?: (patch: RoomPatch) => Promise<boolean>;
  /**
   * A breakout group's page (issue 31, ADR 118): the person is in that group (or the teacher visits
   * it) and sees and draws on this page only, whatever the room's page and wbPower say.
   */
  groupPage?: number | null;
  /** On the group's page: may this person clear it (its leader, the teacher)? */
  groupClear?: boolean;
  /**
   * A courseware slide (app/courseware): this slide's own layer `doc:{documentId}:{page}` with the
   * slide image under the ink, and the slide toolbar (no board pages, images, shapes or QR).
   */
  slide?: { layer: string; backdrop: { image: CanvasImageSource & { width: number; height: number }; offsetY: number } | null };
}

export function BoardView(props: BoardViewProps) {
  const { t } = useTranslation();
  const { store, status, token } = useBoardSync(props.roomNumber, props.myId, props.wbtoken);
  const readOnly = !!props.readOnly;
  const inGroup = props.groupPage !== undefined && props.groupPage !== null && !props.slide;
  const canDraw =
    !readOnly &&
    (inGroup ? props.role !== 'observer' && props.role !== 'recorder' : mayDraw(props.role, props.room.wbPower, props.room.roomType));
  const isCreator = props.role === 'creator';
  const masked = !readOnly && !canDraw && (props.role === 'member' || props.role === 'tourist');
  const { background, pageIndex, page, follow, patchExtend, goPage } = useBoardPaging({
    roomExtend: props.room.roomExtend,
    readOnly,
    isCreator,
    slideLayer: props.slide?.layer ?? null,
    onPatch: props.onPatch,
    fixedPage: inGroup ? props.groupPage : null,
  });
  const { zoom, setZoom, rendererRef, renderer, onRenderer } = useBoardViewport(store, page, follow, isCreator);
  const { imageUrls, stencils, stencilUrl, openStencils } = useBoardPictures(store, page, token, rendererRef);
  const { tools, changeTools, selection, setSelection, hidden, setHidden, edit, setEdit, deleteSelection, commitText } = useBoardTools(
    store,
    page,
    canDraw,
  );
  const inserts = useBoardInserts({
    store,
    page,
    pageIndex,
    canDraw,
    roomNumber: props.roomNumber,
    myId: props.myId,
    token,
    imageUrls,
    rendererRef,
    onCleared: () => setSelection([]),
  });
  const [powerOpen, setPowerOpen] = useState(false);
  useBoardKeys(store, page, canDraw, selection, setSelection, deleteSelection);
  useBoardTestHook(store, page, rendererRef, token);

  if (!store) return <div className="board board--loading" aria-busy="true" />;

  const editorPos = edit && renderer ? renderer.toCss(edit.at) : null;
  const scale = renderer?.scale ?? 1;
  const toolbar = props.readOnly ? null : canDraw ? (
    <Toolbar
      tools={tools}
      onTools={changeTools}
      isCreator={isCreator && !inGroup}
      phone={props.phone}
      hidden={hidden}
      onHidden={setHidden}
      stencils={stencils}
      onOpenShapes={openStencils}
      onImage={(f) => void inserts.addImage(f)}
      uploading={inserts.uploading}
      onDelete={deleteSelection}
      onClearAll={() => void inserts.clearAll()}
      onPhone={() => void inserts.openPhone()}
      onBackground={() => void patchExtend({ color: nextBackground(background) })}
      onPower={() => setPowerOpen(true)}
      onUndo={() => store.undo(page)}
      onRedo={() => store.redo(page)}
      canUndo={store.canUndo(page)}
      canRedo={store.canRedo(page)}
      pageIndex={pageIndex}
      onPage={goPage}
      slide={!!props.slide}
      canClear={!inGroup || isCreator || !!props.groupClear}
    />
  ) : null;

  // The page number shows once: in the creator's toolbar while it is open, else in the head.
  const pagesInToolbar = !!toolbar && isCreator && !props.slide && !hidden && !inGroup;
  const zoomGroup = (
    <ZoomControl zoom={zoom} onZoom={setZoom}>
      {isCreator && !props.readOnly && !inGroup ? (
        <button
          type="button"
          className="board__zoom-value board__follow"
          aria-pressed={follow}
          title={t('board.follow.hint')}
          onClick={() => void patchExtend({ follow: follow ? 0 : 1 })}
          data-testid="follow-toggle"
        >
          {t('board.follow.label')}
        </button>
      ) : follow ? (
        <span className="board__zoom-value" data-testid="following">
          {t('board.follow.on')}
        </span>
      ) : null}
    </ZoomControl>
  );

  return (
    <div
      className={`board${props.phone ? ' board--phone' : ''}`}
      data-testid="board"
      data-page={pageIndex}
      data-background={background}
      data-status={status}
      data-can-draw={canDraw ? '1' : '0'}
      data-group-page={inGroup ? '1' : undefined}
    >
      <div className="board__head">
        {props.slide ? null : props.readOnly ? (
          <div className="board__review-pages" role="group" aria-label={t('board.review.title')}>
            <button
              type="button"
              className="board-tool"
              onClick={() => goPage(pageIndex - 1)}
              disabled={pageIndex <= 0}
              aria-label={t('board.tools.prev')}
              title={t('board.tools.prev')}
              data-testid="page-prev"
            >
              <ChevronLeft size={18} aria-hidden="true" />
            </button>
            <span data-testid="page-label">{t('board.page', { n: pageIndex + 1, total: BOARD_LAST_PAGE + 1 })}</span>
            <button
              type="button"
              className="board-tool"
              onClick={() => goPage(pageIndex + 1)}
              disabled={pageIndex >= BOARD_LAST_PAGE}
              aria-label={t('board.tools.next')}
              title={t('board.tools.next')}
              data-testid="page-next"
            >
              <ChevronRight size={18} aria-hidden="true" />
            </button>
          </div>
        ) : pagesInToolbar ? null : (
          <span className="board__page-badge" data-testid="board-page-badge">
            {t('board.page', { n: pageIndex + 1, total: BOARD_LAST_PAGE + 1 })}
          </span>
        )}
        {masked ? (
          <span className="board__locked" data-testid="board-mask" role="note" title={t('stage.lockedHint')}>
            <Lock size={14} aria-hidden="true" />
            <span>{t('stage.locked')}</span>
          </span>
        ) : null}
        {status !== 'live' && status !== 'connecting' ? (
          <span className="board__status" role="status">
            {t('board.offline')}
          </span>
        ) : null}
        {zoomGroup}
      </div>

      <div className="board__area" data-testid="board-area">
        <BoardCanvas
          store={store}
          page={page}
          pageIndex={pageIndex}
          readOnly={!canDraw}
          tools={tools}
          background={background}
          zoom={zoom}
          onZoom={setZoom}
          selection={selection}
          onSelection={setSelection}
          onText={(at, item) =>
            setEdit({
              at: item && item.data.kind === 'text' ? { x: item.data.x, y: item.data.y } : at,
              item,
              text: item?.data.kind === 'text' ? item.data.text : '',
            })
          }
          imageUrl={(src) => imageUrls.get(src)}
          stencilUrl={stencilUrl}
          onRenderer={onRenderer}
          backdrop={props.slide?.backdrop ?? null}
        />

        {edit && editorPos ? (
          <TextBox
            at={editorPos}
            text={edit.text}
            scale={scale}
            onText={(text) => setEdit({ ...edit, text })}
            onCancel={() => setEdit(null)}
            onCommit={commitText}
          />
        ) : null}

        {inserts.uploading ? (
          <div className="board__uploading" role="status" data-testid="board-uploading">
            <span className="spinner" aria-hidden="true" /> {t('board.image.uploading')}
          </div>
        ) : null}
      </div>

      {toolbar ? <div className="board__foot">{toolbar}</div> : null}

      {powerOpen ? (
        <PowerDialog
          current={props.room.wbPower}
          onClose={() => setPowerOpen(false)}
          onSave={async (value) => {
            if (props.onPatch && (await props.onPatch({ wbPower: value }))) setPowerOpen(false);
          }}
        />
      ) : null}

      {inserts.phoneQr ? (
        <Dialog title={t('board.phone.title')} onClose={inserts.closePhone}>
          <p>{t('board.phone.hint')}</p>
          <img src={inserts.phoneQr} alt={t('board.phone.qrAlt')} width={200} height={200} data-testid="phone-qr" />
        </Dialog>
      ) : null}
    </div>
  );
}
