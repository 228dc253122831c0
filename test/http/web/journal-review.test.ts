// The journal that teaches (issue 30): GET /api/auth/journal/:accountId/review (per trade: initial
// stop, R-multiple, MAE/MFE read on the stored bars, time in trade; per session: expectancy, the
// calendar of daily P&L by CME trading day, P&L by weekday and hour), GET /api/auth/journal/review
// across sessions with a tag filter, PUT /api/auth/journal/:accountId/tags, and
// GET /api/auth/journal/:accountId/trades.csv. Every figure below is worked out by hand from the
// bars and orders of one session.
import { beforeAll, describe, expect, it } from 'bun:test';
import { webCall, webLogin } from '../../support/app.ts';
import { type BarSpec, type ReplayTestApp, replayApp, type Session, startSession } from '../../support/replay.ts';

const PASSWORD = 'correct horse battery staple';

// NQ ($5 a tick of 0.25, $1.40 a side), one 1 s bar a minute from 14:30 UTC on Monday 2025-03-03.
const BARS: BarSpec[] = [
  100, //                      0 14:30  trade 1 buys 2 at its close, stop-loss bracket 8 ticks (98)
  [100, 101, 99, 100.5], //    1 14:31
  [100.5, 103, 98.5, 102], //  2 14:32  the low of trade 1: 98.5 (6 ticks against)
  [102, 104, 101, 103], //     3 14:33  the high of trade 1: 104 (16 ticks for); sold at 103, short 1 at 103 (no stop)
  [103, 103.5, 100, 101], //   4 14:34  trade 2: 103.5 against (2 ticks), 100 for (12 ticks)
  101, //                      5 14:35  bought back at 101; trade 3 buys 1 at 101, then a sell stop at 99
  [101, 102, 97, 97.5], //     6 14:36  up to 102 first (nearer), then down through the stop at 99: 97 is after the exit
];
while (BARS.length < 520) BARS.push(98);
// 520 23:10 UTC = 17:10 CT: trade 4 buys 1 at 98 (the close of 23:09), a trading day later (Tuesday).
BARS.push([98, 99, 97.5, 98.5], 98.5, 98.5);

let t: ReplayTestApp;
let cookie: string;
let sess: Session;

async function ok(path: string, body: unknown) {
  const r = await t.post(path, body, t.token);
  if (!r.body.success) throw new Error(`${path}: ${JSON.stringify(r.body)}`);
  return r.body;
}

beforeAll(async () => {
  t = await replayApp(BARS, { historyClose: 100 });
  await t.s.webAuth.setPassword(t.email, PASSWORD);
  cookie = await webLogin(t, t.email, PASSWORD);
  sess = await startSession(t);
  const a = sess.accountId;
  const market = (side: number, size: number, extra = {}) => ok('Order/place', { accountId: a, contractId: sess.contractId, type: 2, side, size, ...extra });
  const step = (steps: number) => ok('Replay/step', { accountId: a, steps });
  await step(1);
  await market(0, 2, { stopLossBracket: { ticks: 8 } });
  await step(3);
  await market(1, 2);
  await market(1, 1);
  await step(2);
  await market(0, 1);
  await market(0, 1);
  await ok('Order/place', { accountId: a, contractId: sess.contractId, type: 4, side: 1, size: 1, stopPrice: 99 });
  await step(1);
  await ok('Replay/jumpTo', { accountId: a, targetTime: '2025-03-03T23:10:00Z' });
  await market(0, 1);
  await step(1);
  await market(1, 1);
  await ok('Replay/end', { accountId: a });
});

const review = (accountId: number | string, query = '', c: string | null = cookie) => webCall(t, 'GET', `/api/auth/journal/${accountId}/review${query}`, { cookie: c });
const summary = (query = '') => webCall(t, 'GET', `/api/auth/journal/review${query}`, { cookie });
const putTags = (accountId: number | string, body: unknown, c: string | null = cookie) => webCall(t, 'PUT', `/api/auth/journal/${accountId}/tags`, { cookie: c, body });
const tagRows = async () => t.s.sql.all('SELECT account_id, trade_number, tag FROM journal_tags ORDER BY account_id, trade_number, tag');

const money = { trades: 4, expectancy: 29, expectancyR: 0.18, tradesWithR: 2 };

describe('GET /api/auth/journal/:accountId/review', () => {
  it('answers each trade with its initial stop, R, MAE/MFE from the stored bars and time in trade', async () => {
    const r = await review(sess.accountId);
    expect(r.status).toBe(200);
    expect(r.body.success).toBe(true);
    const pick = (x: any) => [x.tradeNumber, x.side, x.size, x.entryPrice, x.exitPrice, x.pnl, x.initialStop, x.risk, x.rMultiple, x.maeTicks, x.mfeTicks, x.mae, x.mfe, x.durationSeconds];
    expect(r.body.trades.map(pick)).toEqual([
      // Long 2 at 100, bracket stop 8 ticks below (98): risk 8 × 2 × $5 = $80. Net (103 − 100) × $20 × 2 − 4 × $1.40 = $114.40:
      // 1.43 R. Bars 14:31–14:33 (the 14:34 bar opens after the market exit): low 98.5 (6 ticks), high 104 (16 ticks).
      [1, 'long', 2, 100, 103, 114.4, 98, 80, 1.43, 6, 16, 60, 160, 180],
      // Short 1 at 103, no stop: no R. Bars 14:34–14:35: 103.5 against (2 ticks), 100 for (12 ticks).
      [2, 'short', 1, 103, 101, 37.2, null, null, null, 2, 12, 10, 60, 120],
      // Long 1 at 101 (market, before the 14:36 bar), stopped at 99 on that bar: its path goes 101 → 102 → 97, so the
      // trade saw 102 (4 ticks for) and 99 (8 against); the 97 after the stop filled is not the trade's.
      // Risk $40, net −$40 − $2.80 = −$42.80: −1.07 R.
      [3, 'long', 1, 101, 99, -42.8, 99, 40, -1.07, 8, 4, 40, 20, 0],
      // Long 1 at 98, 23:10 → 23:11 UTC: the 23:10 bar's 97.5 and 99.
      [4, 'long', 1, 98, 98.5, 7.2, null, null, null, 2, 4, 10, 20, 60],
    ]);
  });

  it('answers expectancy, the calendar by CME trading day (17:00 CT), and P&L by weekday and by hour', async () => {
    const r = await review(sess.accountId);
    const day = (date: string, trades: number, wins: number, losses: number, pnl: number) => ({ date, trades, wins, losses, pnl });
    // (114.40 + 37.20 − 42.80 + 7.20) / 4 = $29.00; in R, (1.43 − 1.07) / 2 = 0.18 over the two trades with a stop.
    expect(r.body.stats).toEqual({
      ...money,
      // Trade 4 closed at 23:11 UTC on Monday, 17:11 CT: Tuesday's trading day.
      calendar: [day('2025-03-03', 3, 2, 1, 108.8), day('2025-03-04', 1, 1, 0, 7.2)],
      byWeekday: [{ weekday: 'Monday', trades: 3, wins: 2, losses: 1, pnl: 108.8 }, { weekday: 'Tuesday', trades: 1, wins: 1, losses: 0, pnl: 7.2 }],
      byHour: [{ hour: 14, trades: 3, wins: 2, losses: 1, pnl: 108.8 }, { hour: 23, trades: 1, wins: 1, losses: 0, pnl: 7.2 }],
    });
    expect(r.body.timeZone).toBe('UTC');
    // The hours follow the reader's zone (Chicago is UTC−6 in early March); the days do not.
    const ct = await review(sess.accountId, '?timeZone=America/Chicago');
    expect(ct.body.timeZone).toBe('America/Chicago');
    expect(ct.body.stats.byHour.map((h: any) => [h.hour, h.trades])).toEqual([[8, 3], [17, 1]]);
    expect(ct.body.stats.calendar).toEqual(r.body.stats.calendar);
  });

  it('refuses an unknown time zone, another user\'s session or none', async () => {
    expect((await review(sess.accountId, '?timeZone=Mars/Olympus')).body).toEqual({
      success: false, errorCode: 2, errorMessage: 'Unknown time zone: give an IANA name such as America/Chicago, or UTC',
    });
    for (const id of ['999999', 'abc']) expect((await review(id)).body).toEqual({ success: false, errorCode: 1, errorMessage: 'Replay session not found' });
    expect((await review(sess.accountId, '', null)).status).toBe(401);
  });
});

describe('GET /api/auth/journal/review', () => {
  it('adds up the sessions the journal lists', async () => {
    const r = await summary('?timeZone=America/Chicago');
    expect(r.body).toMatchObject({ success: true, timeZone: 'America/Chicago', tag: null, sessions: 1, stats: { ...money, calendar: (await review(sess.accountId)).body.stats.calendar } });
    expect(r.body.stats.byHour.map((h: any) => h.hour)).toEqual([8, 17]);
    expect((await summary('?timeZone=nowhere')).body).toEqual({ success: false, errorCode: 2, errorMessage: 'Unknown time zone: give an IANA name such as America/Chicago, or UTC' });
  });
});

describe('PUT /api/auth/journal/:accountId/tags', () => {
  it('keeps tags on the session and on trades (trimmed, lower case, unique, sorted), shown by the list, the detail and the review', async () => {
    expect((await putTags(sess.accountId, { tradeNumber: null, tags: ['Trend Day', ' FOMC ', 'fomc'] })).body).toEqual({ success: true, errorCode: 0, errorMessage: null, tradeNumber: null, tags: ['fomc', 'trend day'] });
    expect((await putTags(sess.accountId, { tradeNumber: 3, tags: ['A+ setup', 'late  entry'] })).body.tags).toEqual(['a+ setup', 'late entry']);
    expect((await putTags(sess.accountId, { tradeNumber: 1, tags: ['a+ setup'] })).body.success).toBe(true);
    expect((await webCall(t, 'GET', '/api/auth/journal', { cookie })).body.sessions[0].tags).toEqual(['fomc', 'trend day']);
    expect((await webCall(t, 'GET', `/api/auth/journal/${sess.accountId}`, { cookie })).body.tags).toEqual(['fomc', 'trend day']);
    const r = (await review(sess.accountId)).body;
    expect(r.tags).toEqual(['fomc', 'trend day']);
    expect(r.trades.map((x: any) => x.tags)).toEqual([['a+ setup'], [], ['a+ setup', 'late entry'], []]);
  });

  it('filters: the list and the statistics by a tag on a trade or on its session', async () => {
    // Trades 1 and 3 carry "a+ setup": 114.40 − 42.80 = $71.60 over 2, R (1.43 − 1.07) / 2.
    const a = (await summary('?tag=%20A%2B%20%20Setup')).body;
    expect([a.tag, a.sessions, a.stats.trades, a.stats.expectancy, a.stats.expectancyR]).toEqual(['a+ setup', 1, 2, 35.8, 0.18]);
    // The session carries "fomc": all of its trades count.
    expect((await summary('?tag=fomc')).body.stats.trades).toBe(4);
    const none = (await summary('?tag=nothing')).body;
    expect([none.sessions, none.stats]).toEqual([0, { trades: 0, expectancy: 0, expectancyR: null, tradesWithR: 0, calendar: [], byWeekday: [], byHour: [] }]);
    expect((await webCall(t, 'GET', '/api/auth/journal?tag=late%20entry', { cookie })).body.sessions.map((s: any) => s.accountId)).toEqual([sess.accountId]);
    expect((await webCall(t, 'GET', '/api/auth/journal?tag=nothing', { cookie })).body.sessions).toEqual([]);
  });

  it.each([
    ['a trade the session does not have', { tradeNumber: 5, tags: ['x'] }, 2, 'Trade not found'],
    ['trade number 0', { tradeNumber: 0, tags: ['x'] }, 2, 'Trade not found'],
    ['tags that are not a list', { tradeNumber: 1, tags: 'x' }, 3, 'Invalid tags: tradeNumber must be null or a trade number, tags a list of strings'],
    ['a tag that is not a string', { tradeNumber: 1, tags: ['ok', 5] }, 3, 'Invalid tags: tradeNumber must be null or a trade number, tags a list of strings'],
    ['no trade number', { tags: ['x'] }, 3, 'Invalid tags: tradeNumber must be null or a trade number, tags a list of strings'],
    ['an empty tag', { tradeNumber: 1, tags: ['ok', '  '] }, 3, 'Invalid tag "  ": 1 to 32 letters, digits, spaces or - _ . / # + &, starting with a letter or digit'],
    ['a tag with a semicolon', { tradeNumber: 1, tags: ['a;b'] }, 3, 'Invalid tag "a;b": 1 to 32 letters, digits, spaces or - _ . / # + &, starting with a letter or digit'],
    ['a tag of 33 characters', { tradeNumber: 1, tags: ['x'.repeat(33)] }, 3, `Invalid tag "${'x'.repeat(33)}": 1 to 32 letters, digits, spaces or - _ . / # + &, starting with a letter or digit`],
    ['a tag of 5,000 characters (quoted cut)', { tradeNumber: 1, tags: ['z'.repeat(5000)] }, 3, `Invalid tag "${'z'.repeat(40)}…": 1 to 32 letters, digits, spaces or - _ . / # + &, starting with a letter or digit`],
    ['11 tags on one trade', { tradeNumber: 1, tags: Array.from({ length: 11 }, (_, i) => `t${i}`) }, 4, 'At most 10 tags on a session or a trade'],
  ])('refuses %s, changing nothing', async (_, body, errorCode, errorMessage) => {
    const before = await tagRows();
    const r = await putTags(sess.accountId, body);
    expect(r.status).toBe(200);
    expect(r.body).toEqual({ success: false, errorCode, errorMessage });
    expect(await tagRows()).toEqual(before);
  });

  it('accepts 10 tags of 32 characters; an empty list clears them', async () => {
    const tags = Array.from({ length: 10 }, (_, i) => `${i}${'y'.repeat(31)}`);
    expect((await putTags(sess.accountId, { tradeNumber: 2, tags })).body.tags).toEqual(tags);
    expect((await putTags(sess.accountId, { tradeNumber: 2, tags: [] })).body.tags).toEqual([]);
    expect((await review(sess.accountId)).body.trades[1].tags).toEqual([]);
  });

  it('refuses a write past the user\'s tag rows in all (20,000), changing nothing; another user\'s session reads as not found', async () => {
    const now = await tagRows();
    // Fill the user's quota to one short of full, with rows on trade numbers the session has not got (the store takes them).
    const room = 20_000 - now.length;
    await t.s.sql.transaction(async () => {
      for (let i = 0; i < room - 1; i++) await t.s.sql.run('INSERT INTO journal_tags (account_id, trade_number, tag) VALUES ($a, $n, $g)', { a: sess.accountId, n: 100 + (i % 1000), g: `q${Math.floor(i / 1000)}` });
    });
    const before = await tagRows();
    expect((await putTags(sess.accountId, { tradeNumber: 4, tags: ['one', 'two'] })).body).toEqual({ success: false, errorCode: 5, errorMessage: 'Your sessions would hold more than 20000 tags; remove some first' });
    expect(await tagRows()).toEqual(before);
    expect((await putTags(sess.accountId, { tradeNumber: 4, tags: ['one'] })).body.success).toBe(true);
    await t.s.sql.run('DELETE FROM journal_tags WHERE trade_number >= 100 OR trade_number = 4');
    const other = await t.s.users.create({ email: 'other@example.com', plan: 'pro', password: PASSWORD });
    if (!other.ok) throw new Error('setup');
    const otherCookie = await webLogin(t, 'other@example.com', PASSWORD);
    expect((await putTags(sess.accountId, { tradeNumber: null, tags: ['mine'] }, otherCookie)).body).toEqual({ success: false, errorCode: 1, errorMessage: 'Replay session not found' });
    expect((await putTags(sess.accountId, { tradeNumber: null, tags: ['x'] }, null)).status).toBe(401);
  });
});

describe('GET /api/auth/journal/:accountId/trades.csv', () => {
  it('answers RFC 4180 CSV: a header row, CRLF, quoted fields, times ISO UTC, prices to the tick', async () => {
    await webCall(t, 'POST', `/api/auth/journal/${sess.accountId}/note`, { cookie, body: { tradeNumber: 2, text: 'Faded the "spike", then\nwaited' } });
    const r = await webCall(t, 'GET', `/api/auth/journal/${sess.accountId}/trades.csv`, { cookie });
    expect(r.status).toBe(200);
    expect(r.headers.get('content-type')).toBe('text/csv; charset=utf-8');
    expect(r.headers.get('content-disposition')).toBe(`attachment; filename="journal-${sess.accountId}-trades.csv"`);
    expect(r.body).toBe(
      'tradeNumber,symbol,side,size,entryTime,entryPrice,exitTime,exitPrice,pnl,fees,initialStop,rMultiple,mae,mfe,durationSeconds,tags,note\r\n' +
        '1,NQ,long,2,2025-03-03T14:31:00Z,100.00,2025-03-03T14:34:00Z,103.00,114.40,5.60,98.00,1.43,60.00,160.00,180,a+ setup,\r\n' +
        '2,NQ,short,1,2025-03-03T14:34:00Z,103.00,2025-03-03T14:36:00Z,101.00,37.20,2.80,,,10.00,60.00,120,,"Faded the ""spike"", then\nwaited"\r\n' +
        '3,NQ,long,1,2025-03-03T14:36:00Z,101.00,2025-03-03T14:36:00Z,99.00,-42.80,2.80,99.00,-1.07,40.00,20.00,0,a+ setup;late entry,\r\n' +
        '4,NQ,long,1,2025-03-03T23:10:00Z,98.00,2025-03-03T23:11:00Z,98.50,7.20,2.80,,,10.00,20.00,60,,\r\n',
    );
    expect((await webCall(t, 'GET', '/api/auth/journal/999999/trades.csv', { cookie })).body).toEqual({ success: false, errorCode: 1, errorMessage: 'Replay session not found' });
  });

  it('deletes the tags with their session when an old ended session is pruned', async () => {
    const { ReplayStore } = await import('../../../src/store/replay.ts');
    await t.s.sql.transaction(() => new ReplayStore(t.s.sql).deleteEnded(sess.accountId));
    expect(await tagRows()).toEqual([]);
  });
});
