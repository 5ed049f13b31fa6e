/**
 * The whiteboard as the classroom shows it: the surface, the toolbar, the text editor, the
 * permission dialog, the phone-photo QR, the upload spinner, and the mask for members who may not
 * draw. Page and background colour come from the room's roomExtend, so everyone follows the
 * creator; the creator changes them through the room channel's patch.
 */
import { useCallback, useEffect, useMemo, useRef, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { ChevronLeft, ChevronRight, Lock } from 'lucide-react';
import './board.css';
import type { RoomInfo } from '#core/contracts/api.ts';
import { BOARD_LAST_PAGE, type BoardItem } from '#core/contracts/board.ts';
import { TextBox } from './TextBox.tsx';
import type { Role, RoomPatch } from '#core/contracts/room-events.ts';
import { Dialog, useConfirm } from '#app/components/Dialog.tsx';
import { codeMessage } from '#app/lib/messages.ts';
import { currentLang } from '#app/lib/lang.ts';
import { toast } from '#app/lib/toast.ts';
import { BoardCanvas } from './BoardCanvas.tsx';
import { imagePlan, placeImage, translateData } from '#core/board/draw/geometry.ts';
import { prepareBoardImage, uploadBoardImage } from './images.ts';
import { createWbToken, ImageUrls, loadStencils, type Stencil } from './net.ts';
import type { BoardRenderer } from '#core/board/draw/renderer.ts';
import type { BoardStore } from './store.ts';
import { Toolbar } from './Toolbar.tsx';
import { boardShortcut, commitTextEdit, keyIsElsewhere, type TextEdit } from './editing.ts';
import { ZoomControl } from './ZoomControl.tsx';
import {
  DEFAULT_TOOLS,
  mayDraw,
  nextBackground,
  readExtend,
  readFollow,
  wbLayer,
  writeExtend,
  type ToolState,
} from '#core/board/draw/tools.ts';
import { useBoardSync } from './useBoardSync.ts';

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
   * A courseware slide (app/courseware): this slide's own layer `doc:{documentId}:{page}` with the
   * slide image under the ink, and the slide toolbar (no board pages, images, shapes or QR).
   */
  slide?: { layer: string; backdrop: { image: CanvasImageSource & { width: number; height: number }; offsetY: number } | null };
}

/** What end-to-end tests read (window.__banshuBoard). */
export interface BoardTestHook {
  store: BoardStore;
  page: () => string;
  renderer: () => BoardRenderer | null;
  /** The board token in use (the phone upload address carries it). */
  token: () => string;
}

export function BoardView(props: BoardViewProps) {
  const { t } = useTranslation();
  const confirm = useConfirm();
  const { store, status, token } = useBoardSync(props.roomNumber, props.myId, props.wbtoken);
  const extend = readExtend(props.room.roomExtend);
  const [reviewPage, setReviewPage] = useState(0);
  const pageIndex = props.readOnly ? reviewPage : extend.pageIndex;
  const page = props.slide ? props.slide.layer : wbLayer(pageIndex);
  const canDraw = !props.readOnly && mayDraw(props.role, props.room.wbPower, props.room.roomType);
  const isCreator = props.role === 'creator';
  const masked = !props.readOnly && !canDraw && (props.role === 'member' || props.role === 'tourist');
  // 'Follow me': members see the creator's zoom and pan (move_by_presenter, ADR 034).
  const follow = !props.readOnly && readFollow(props.room.roomExtend);

  const [tools, setTools] = useState<ToolState>(DEFAULT_TOOLS);
  const [zoom, setZoom] = useState(1);
  const [selection, setSelection] = useState<string[]>([]);
  const [hidden, setHidden] = useState(false);
  const [edit, setEdit] = useState<TextEdit | null>(null);
  const [uploading, setUploading] = useState(false);
  const [powerOpen, setPowerOpen] = useState(false);
  const [phoneQr, setPhoneQr] = useState<string | null>(null);
  const [stencils, setStencils] = useState<Stencil[] | null>(null);
  const [, setTick] = useState(0);
  const rendererRef = useRef<BoardRenderer | null>(null);
  // The handlers read the ref; the render (the text editor's place and size) reads the state.
  const [renderer, setRenderer] = useState<BoardRenderer | null>(null);
  const onRenderer = useCallback((r: BoardRenderer | null) => {
    rendererRef.current = r;
    setRenderer(r);
  }, []);
  const clipboard = useRef<BoardItem | null>(null);

  const imageUrls = useMemo(() => new ImageUrls(token), [token]);
  // New addresses arrived: the renderer repaints with the pictures.
  useEffect(() => imageUrls.onReady(() => rendererRef.current?.requestFull()), [imageUrls]);
  const stencilById = useMemo(() => new Map((stencils ?? []).map((s) => [s.id, s.imageUrl])), [stencils]);
  const stencilUrl = useCallback((id: string) => stencilById.get(id) ?? null, [stencilById]);
  // Stencils already on the board need their pictures: load the list once something needs it.
  const needStencils = useRef(false);
  const openStencils = useCallback(() => {
    if (needStencils.current) return;
    needStencils.current = true;
    void loadStencils().then((list) => {
      setStencils(list);
      rendererRef.current?.requestFull();
    });
  }, []);

  // Undo/redo availability and refusals follow the store.
  useEffect(() => {
    if (!store) return;
    const offChange = store.on('change', (changed) => {
      if (changed === page) setTick((n) => n + 1);
      if (!needStencils.current && [...store.layer(page).view.values()].some((i) => i.data.kind === 'stencil')) openStencils();
    });
    const offRefused = store.on('refused', (ack) => {
      toast.error(ack.msg || codeMessage(ack.code, currentLang()) || t('board.refused'));
    });
    return () => {
      offChange();
      offRefused();
    };
  }, [store, page, t, openStencils]);

  // A new page starts with nothing selected (reset while rendering, not in an effect after it).
  const [selectionPage, setSelectionPage] = useState(page);
  if (selectionPage !== page) {
    setSelectionPage(page);
    setSelection([]);
    setEdit(null);
  }

  // The test hook.
  useEffect(() => {
    if (!store) return;
    const hook: BoardTestHook = { store, page: () => page, renderer: () => rendererRef.current, token };
    (window as unknown as { __banshuBoard?: BoardTestHook }).__banshuBoard = hook;
  }, [store, page, token]);

  const patchExtend = useCallback(
    async (change: { color?: number; pageIndex?: number; follow?: 0 | 1 }) => {
      if (!props.onPatch) return false;
      return props.onPatch({ roomExtend: writeExtend(props.room.roomExtend, change) });
    },
    [props],
  );

  // The creator, while 'follow me' is on: the viewport goes out when it changed (at most 4 a second).
  useEffect(() => {
    if (!store || !follow || !isCreator) return;
    let last = '';
    const send = () => {
      const r = rendererRef.current;
      if (!r || store.status !== 'live') return;
      const v = r.viewport();
      const key = JSON.stringify(v);
      if (key === last) return;
      last = key;
      store.submit({ type: 'move_by_presenter', page, data: v });
    };
    send();
    const timer = setInterval(send, 250);
    return () => clearInterval(timer);
  }, [store, follow, isCreator, page]);

  // Everyone else, while it is on: the layer's presenter viewport, fitted to this screen.
  useEffect(() => {
    if (!store || !follow || isCreator) return;
    const apply = () => {
      const v = store.layer(page).viewport;
      const r = rendererRef.current;
      if (!v || !r) return;
      r.showViewport(v);
      setZoom(r.zoom);
    };
    apply();
    return store.on('viewport', (changed) => {
      if (changed === page) apply();
    });
  }, [store, follow, isCreator, page]);

  const goPage = (next: number) => {
    const bounded = Math.max(0, Math.min(BOARD_LAST_PAGE, next));
    if (props.readOnly) setReviewPage(bounded);
    else if (isCreator) void patchExtend({ pageIndex: bounded });
  };

  const deleteSelection = useCallback(() => {
    if (!store || !canDraw) return;
    if (selection.length === 0) {
      toast.info(t('board.nothingSelected'));
      return;
    }
    store.deleteItems(page, selection);
    setSelection([]);
  }, [store, canDraw, selection, page, t]);

  const clearAll = async () => {
    if (!store || !canDraw) return;
    if (await confirm({ message: t('board.clearConfirm') })) {
      store.clear(page);
      setSelection([]);
    }
  };

  const addImage = async (file: File) => {
    if (!store || !canDraw) return;
    const plan = imagePlan(file.type, file.name, file.size);
    if (plan === 'badType') return void toast.error(t('board.image.onlyJpgPng'));
    if (plan === 'tooLarge') return void toast.error(t('board.image.tooLarge'));
    setUploading(true);
    try {
      const image = await prepareBoardImage(file, plan === 'compress');
      const answer = await uploadBoardImage(image, { token: token(), lang: currentLang() });
      if (answer.code !== '0' || !answer.data) {
        toast.error(answer.msg || codeMessage(answer.code, currentLang()) || t('board.image.failed'));
        return;
      }
      if (answer.data.url) imageUrls.set(answer.data.key, answer.data.url);
      const centre = rendererRef.current?.visibleCentre() ?? { x: 512, y: 384 };
      const box = placeImage(image.width, image.height, centre);
      store.create(page, 'uploadImg', { kind: 'image', src: answer.data.key, ...box });
    } catch {
      toast.error(t('board.image.failed'));
    } finally {
      setUploading(false);
    }
  };

  const openPhone = async () => {
    const fresh = await createWbToken(props.myId, props.roomNumber);
    const tk = fresh?.token ?? token();
    const url = new URL(`/upload/${encodeURIComponent(props.myId)}/${encodeURIComponent(props.roomNumber)}`, window.location.origin);
    url.searchParams.set('t', tk);
    url.searchParams.set('p', String(pageIndex));
    const QRCode = await import('qrcode');
    setPhoneQr(await QRCode.toDataURL(url.toString(), { margin: 1, width: 200, errorCorrectionLevel: 'L' }));
  };

  const commitText = () => {
    if (!store || !edit) return;
    setEdit(null);
    commitTextEdit(store, page, edit, tools.color);
  };

  // Keyboard: undo/redo, delete, copy/paste, zoom. Not while typing somewhere.
  useEffect(() => {
    if (!store || !canDraw) return;
    const onKey = (e: KeyboardEvent) => {
      if (keyIsElsewhere(e)) return;
      const action = boardShortcut(e, selection.length > 0);
      const mod = e.ctrlKey || e.metaKey;
      const key = e.key.toLowerCase();
      if (action === 'undo' || action === 'redo' || action === 'delete') {
        e.preventDefault();
        if (action === 'undo') store.undo(page);
        else if (action === 'redo') store.redo(page);
        else deleteSelection();
      } else if (action === 'deselect') {
        setSelection([]);
      } else if (mod && key === 'c' && selection.length > 0) {
        if (selection.length > 1) {
          toast.info(t('board.multiSelect'));
          return;
        }
        clipboard.current = store.layer(page).get(selection[0]!) ?? null;
      } else if (mod && key === 'v' && clipboard.current) {
        const copy = clipboard.current;
        const op = store.create(page, copy.data.kind === 'image' ? 'uploadImg' : 'choose', translateData(copy.data, 20, 20));
        if (op.id) setSelection([op.id]);
        clipboard.current = { ...copy, data: translateData(copy.data, 20, 20) };
      }
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, [store, canDraw, page, selection, deleteSelection, t]);

  if (!store) return <div className="board board--loading" aria-busy="true" />;

  const editorPos = edit && renderer ? renderer.toCss(edit.at) : null;
  const scale = renderer?.scale ?? 1;
  const toolbar = props.readOnly ? null : canDraw ? (
    <Toolbar
      tools={tools}
      onTools={(next) => {
        setTools(next);
        if (next.tool !== 'choose') setSelection([]);
      }}
      isCreator={isCreator}
      phone={props.phone}
      hidden={hidden}
      onHidden={setHidden}
      stencils={stencils}
      onOpenShapes={openStencils}
      onImage={(f) => void addImage(f)}
      uploading={uploading}
      onDelete={deleteSelection}
      onClearAll={() => void clearAll()}
      onPhone={() => void openPhone()}
      onBackground={() => void patchExtend({ color: nextBackground(extend.color) })}
      onPower={() => setPowerOpen(true)}
      onUndo={() => store.undo(page)}
      onRedo={() => store.redo(page)}
      canUndo={store.canUndo(page)}
      canRedo={store.canRedo(page)}
      pageIndex={pageIndex}
      onPage={goPage}
      slide={!!props.slide}
    />
  ) : null;

  // The page number shows once: in the creator's toolbar while it is open, else in the head.
  const pagesInToolbar = !!toolbar && isCreator && !props.slide && !hidden;
  const zoomGroup = (
    <ZoomControl zoom={zoom} onZoom={setZoom}>
      {isCreator && !props.readOnly ? (
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
      data-background={extend.color}
      data-status={status}
      data-can-draw={canDraw ? '1' : '0'}
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
          background={extend.color}
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

        {uploading ? (
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

      {phoneQr ? (
        <Dialog title={t('board.phone.title')} onClose={() => setPhoneQr(null)}>
          <p>{t('board.phone.hint')}</p>
          <img src={phoneQr} alt={t('board.phone.qrAlt')} width={200} height={200} data-testid="phone-qr" />
        </Dialog>
      ) : null}
    </div>
  );
}

function PowerDialog({
  current,
  onClose,
  onSave,
}: {
  current: '0' | '1';
  onClose: () => void;
  onSave: (value: '0' | '1') => Promise<void>;
}) {
  const { t } = useTranslation();
  const [value, setValue] = useState<'0' | '1'>(current);
  const [busy, setBusy] = useState(false);
  return (
    <Dialog
      title={t('board.power.title')}
      onClose={onClose}
      actions={
        <>
          <button type="button" className="btn btn--ghost" onClick={onClose}>
            {t('board.power.cancel')}
          </button>
          <button
            type="button"
            className="btn btn--primary"
            disabled={busy}
            data-testid="power-ok"
            onClick={() => {
              setBusy(true);
              void onSave(value).finally(() => setBusy(false));
            }}
          >
            {t('board.power.ok')}
          </button>
        </>
      }
    >
      <fieldset className="stack">
        <legend className="visually-hidden">{t('board.power.title')}</legend>
        <label>
          <input type="radio" name="wbPower" checked={value === '1'} onChange={() => setValue('1')} data-testid="power-allow" />{' '}
          {t('board.power.allow')}
        </label>
        <label>
          <input type="radio" name="wbPower" checked={value === '0'} onChange={() => setValue('0')} data-testid="power-forbid" />{' '}
          {t('board.power.forbid')}
        </label>
      </fieldset>
    </Dialog>
  );
}
