/**
 * The studio's whiteboard: three pages drawn with the classroom's board (BoardCanvas, Toolbar,
 * renderer, tools) on a local BoardStore: nothing is sent to a server, the pages live as long as
 * the studio is open. The surface goes on the stage (the compositor records its canvases), the
 * toolbar and the page buttons in the bar under it, so no control covers the board.
 */
import { useCallback, useEffect, useRef, useState, type ReactNode } from 'react';
import { useTranslation } from 'react-i18next';
import '#app/board/board.css';
import { TextBox } from '#app/board/TextBox.tsx';
import { STUDIO_BOARD_PAGES } from '#core/contracts/studio.ts';
import { BoardCanvas } from '#app/board/BoardCanvas.tsx';
import type { BoardRenderer } from '#core/board/draw/renderer.ts';
import { BoardStore } from '#app/board/store.ts';
import { Toolbar } from '#app/board/Toolbar.tsx';
import { boardShortcut, commitTextEdit, keyIsElsewhere, type TextEdit } from '#app/board/editing.ts';
import { DEFAULT_TOOLS, wbLayer, type ToolState } from '#core/board/draw/tools.ts';
import { useConfirm } from '#app/components/Dialog.tsx';
import { StudioPager } from './StudioPager.tsx';

const noImage = () => null;
const nothing = () => undefined;

export interface StudioBoard {
  /** The board surface for the stage. */
  surface: ReactNode;
  /** The board's toolbar and page buttons for the bar. */
  controls: ReactNode;
  /** For tests: the store (window.__banshuStudio, test build only). */
  store: BoardStore;
}

export function useStudioBoard(active: boolean): StudioBoard {
  const { t } = useTranslation();
  const confirm = useConfirm();
  const [store] = useState(() => BoardStore.local());
  const [pageIndex, setPageIndex] = useState(0);
  const page = wbLayer(pageIndex);
  const [tools, setTools] = useState<ToolState>(DEFAULT_TOOLS);
  const [zoom, setZoom] = useState(1);
  const [selection, setSelection] = useState<string[]>([]);
  const [hidden, setHidden] = useState(false);
  const [edit, setEdit] = useState<TextEdit | null>(null);
  const [renderer, setRenderer] = useState<BoardRenderer | null>(null);
  const [, setTick] = useState(0);
  const rendererRef = useRef<BoardRenderer | null>(null);
  const onRenderer = useCallback((r: BoardRenderer | null) => {
    rendererRef.current = r;
    setRenderer(r);
  }, []);

  useEffect(() => {
    void store.connect();
  }, [store]);

  // Undo and redo availability follow the page's changes.
  useEffect(() => store.on('change', (changed) => changed === page && setTick((n) => n + 1)), [store, page]);

  // A new page starts with nothing selected and no text box open.
  const [shownPage, setShownPage] = useState(page);
  if (shownPage !== page) {
    setShownPage(page);
    setSelection([]);
    setEdit(null);
  }

  const goPage = (next: number) => setPageIndex(Math.max(0, Math.min(STUDIO_BOARD_PAGES - 1, next)));

  const deleteSelection = useCallback(() => {
    if (selection.length === 0) return;
    store.deleteItems(page, selection);
    setSelection([]);
  }, [store, page, selection]);

  const commitText = () => {
    if (!edit) return;
    setEdit(null);
    commitTextEdit(store, page, edit, tools.color);
  };

  // Keyboard: undo, redo and delete while the board is shown (not while typing or in a dialog).
  useEffect(() => {
    if (!active) return;
    const onKey = (e: KeyboardEvent) => {
      if (keyIsElsewhere(e)) return;
      const action = boardShortcut(e, selection.length > 0);
      if (action === 'deselect') setSelection([]);
      else if (action) {
        e.preventDefault();
        if (action === 'undo') store.undo(page);
        else if (action === 'redo') store.redo(page);
        else deleteSelection();
      }
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, [active, store, page, selection, deleteSelection]);

  const editorPos = edit && renderer ? renderer.toCss(edit.at) : null;
  const scale = renderer?.scale ?? 1;

  const surface = (
    <div className="studio-board" data-studio-source="board" data-testid="studio-board" data-page={pageIndex}>
      <BoardCanvas
        store={store}
        page={page}
        pageIndex={pageIndex}
        readOnly={false}
        tools={tools}
        background={0}
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
        imageUrl={noImage}
        stencilUrl={noImage}
        onRenderer={onRenderer}
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
    </div>
  );

  const controls = (
    <div className="studio-board-controls">
      <div className="studio-board-toolbar">
        <Toolbar
          tools={tools}
          onTools={(next) => {
            setTools(next);
            if (next.tool !== 'choose') setSelection([]);
          }}
          isCreator={false}
          phone={false}
          hidden={hidden}
          onHidden={setHidden}
          stencils={[]}
          onOpenShapes={nothing}
          onImage={nothing}
          uploading={false}
          onDelete={deleteSelection}
          onClearAll={() =>
            void confirm({ message: t('board.clearConfirm') }).then((ok) => {
              if (!ok) return;
              store.clear(page);
              setSelection([]);
            })
          }
          onPhone={nothing}
          onBackground={nothing}
          onPower={nothing}
          onUndo={() => store.undo(page)}
          onRedo={() => store.redo(page)}
          canUndo={store.canUndo(page)}
          canRedo={store.canRedo(page)}
          pageIndex={pageIndex}
          onPage={goPage}
          local
        />
      </div>
      <StudioPager
        page={pageIndex + 1}
        total={STUDIO_BOARD_PAGES}
        onPage={(n) => goPage(n - 1)}
        label={t('studio.board.pages')}
        text={t('studio.board.page', { n: pageIndex + 1, total: STUDIO_BOARD_PAGES })}
        prevLabel={t('studio.board.prev')}
        nextLabel={t('studio.board.next')}
        testId="studio-board"
      />
    </div>
  );

  return { surface, controls, store };
}
