import { describe, expect, it } from 'vitest';
import type { RoomView } from '#core/contracts/api.ts';
import { applyViewEvent, shownLayer } from './useRoomView.ts';

const deck = {
  documentId: '7',
  documentName: 'deck.pdf',
  documentType: 1 as const,
  resourceType: 1 as const,
  images: ['/p1.jpg', '/p2.jpg', '/p3.jpg'],
  videoUrl: '',
  sizes: [
    { width: 1280, height: 720 },
    { width: 1280, height: 720 },
    { width: 720, height: 1280 },
  ],
  pptCurrentPage: 2,
  pptTotalPage: 3,
  status: 3 as const,
  scroll: 0.3,
};
const none = { ...deck, documentId: '', documentType: 0 as const, images: [], sizes: [], pptCurrentPage: 1, pptTotalPage: 1 };

const view = (over: Partial<RoomView> = {}): RoomView => ({
  roomNumber: '123456',
  roomType: 1,
  createUser: '1',
  createUserName: 'Wang',
  state: 'open',
  showState: 'ppt',
  roomExtend: '{"pageIndex":4}',
  wbPower: '0',
  courseware: deck,
  viewerId: '2',
  wbtoken: 't',
  canDraw: false,
  ...over,
});

describe('shownLayer', () => {
  it("shows the open document's current slide, with its image, page, total and scroll", () => {
    expect(shownLayer(view(), 'slide')).toEqual({
      shown: 'slide',
      layer: 'doc:7:2',
      slide: { url: '/p2.jpg', page: 2, total: 3, size: { width: 1280, height: 720 }, scroll: 0.3 },
    });
  });
  it('shows the whiteboard page without a document, when asked for the board, or when following a room that shows it', () => {
    expect(shownLayer(view({ courseware: none }), 'slide')).toEqual({ shown: 'board', layer: 'wb:4', slide: null });
    expect(shownLayer(view(), 'board').layer).toBe('wb:4');
    expect(shownLayer(view({ showState: 'wb' }), 'follow').layer).toBe('wb:4');
    expect(shownLayer(view({ showState: 'wb' }), 'slide').layer).toBe('doc:7:2');
    expect(shownLayer(view({ showState: 'ppt' }), 'follow').layer).toBe('doc:7:2');
    expect(shownLayer(null, 'slide')).toEqual({ shown: 'board', layer: 'wb:0', slide: null });
  });
  it('keeps the page within the pages there are, and a video is no slide', () => {
    expect(shownLayer(view({ courseware: { ...deck, pptCurrentPage: 9 } }), 'slide').layer).toBe('doc:7:3');
    expect(shownLayer(view({ courseware: { ...deck, pptCurrentPage: 0 } }), 'slide').layer).toBe('doc:7:1');
    expect(shownLayer(view({ courseware: { ...deck, documentType: 3 } }), 'slide').shown).toBe('board');
  });
});

describe('applyViewEvent', () => {
  it('takes what the event carries and keeps the rest', () => {
    const turned = applyViewEvent(view(), { courseware: { ...deck, pptCurrentPage: 3 } });
    expect(turned.courseware.pptCurrentPage).toBe(3);
    expect(turned.roomExtend).toBe('{"pageIndex":4}');
    const patched = applyViewEvent(view(), { showState: 'wb', roomExtend: '{"pageIndex":1}', wbPower: '1' });
    expect(patched).toMatchObject({ showState: 'wb', roomExtend: '{"pageIndex":1}', wbPower: '1', courseware: deck, state: 'open' });
    expect(applyViewEvent(view(), { closed: true }).state).toBe('closed');
    expect(applyViewEvent(view(), {})).toEqual(view());
  });
});
