import { describe, expect, it } from 'vitest';
import { parseStencils } from './net.ts';

describe('board stencils', () => {
  it('reads the stencil list from JSON text, grouped by subject', () => {
    const list = parseStencils(
      JSON.stringify([
        { id: 'm1', subjectId: 2, stname: 'geometry', name: 'protractor', imageUrl: '/s/m1.svg' },
        { id: 'c1', subjectId: '4', name: 'flask', imageUrl: '/s/c1.svg' },
        { id: 'bad', subjectId: 9, imageUrl: '/x' },
      ]),
    );
    expect(list.map((s) => [s.id, s.group])).toEqual([
      ['m1', 'math'],
      ['c1', 'chemistry'],
    ]);
    expect(parseStencils('oops')).toEqual([]);
  });
});
