// The block service's state caches share one byte budget: entries are charged
// by size, the largest caches are cleared whole when the budget is passed,
// and a closed store's caches stop counting.
import { BudgetedCache, CacheBudget, bytesOfString } from '../src/state/cache-budget.js';

describe('the state cache budget', () => {
  test('charges each entry, replaces an entry\'s charge, and counts absent values by their key', () => {
    const budget = new CacheBudget(1_000_000);
    const cache = new BudgetedCache<string>(budget, bytesOfString);
    cache.set('a', 'x'.repeat(100));
    const one = budget.bytesUsed;
    expect(one).toBeGreaterThan(200);
    cache.set('a', 'x'.repeat(10));
    expect(budget.bytesUsed).toBeLessThan(one);
    cache.set('b', undefined);
    expect(cache.has('b')).toBe(true);
    expect(cache.get('b', () => 'loaded')).toBeUndefined();
    expect(cache.get('c', () => 'loaded')).toBe('loaded');
    expect(budget.bytesUsed).toBe(cache.bytes);
  });

  test('past the budget, the largest caches are cleared until half of it is free', () => {
    const budget = new CacheBudget(10_000);
    const big = new BudgetedCache<string>(budget, bytesOfString);
    const small = new BudgetedCache<string>(budget, bytesOfString);
    for (let i = 0; i < 5; i++) small.set(`s${i}`, 'v');
    for (let i = 0; budget.bytesUsed + 2_000 < 10_000; i++) big.set(`b${i}`, 'y'.repeat(500));
    const smallBefore = small.size;
    big.set('over', 'z'.repeat(3_000));
    expect(big.size).toBe(0);
    expect(small.size).toBe(smallBefore);
    expect(budget.bytesUsed).toBe(small.bytes);
    expect(budget.bytesUsed).toBeLessThanOrEqual(5_000);
  });

  test('a disposed cache no longer counts nor remembers, and a smaller limit holds from the next charge', () => {
    const budget = new CacheBudget(1_000_000);
    const a = new BudgetedCache<string>(budget, bytesOfString);
    const b = new BudgetedCache<string>(budget, bytesOfString);
    for (let i = 0; i < 100; i++) a.set(`k${i}`, 'v'.repeat(50));
    b.set('k', 'v');
    a.dispose();
    expect(budget.bytesUsed).toBe(b.bytes);
    for (let i = 0; i < 100; i++) a.set(`k${i}`, 'v'.repeat(50));
    expect(a.size).toBe(0);
    expect(budget.bytesUsed).toBe(b.bytes);
    for (let i = 0; i < 100; i++) b.set(`k${i}`, 'v'.repeat(50));
    budget.setLimit(1_000);
    b.set('one more', 'v');
    expect(budget.bytesUsed).toBeLessThanOrEqual(500);
  });
});
