// GET /api/playground/templates: public, the spec's Template fields plus `code`.
import { describe, expect, it } from 'bun:test';
import { TEMPLATES } from '../../../src/service/playground/templates.ts';
import { makeApp, makeWebUser, webCall, webLogin } from '../../support/app.ts';

describe('GET /api/playground/templates', () => {
  it('is public and lists every template of the catalog with exactly the spec fields plus code', async () => {
    const t = await makeApp();
    const r = await webCall(t, 'GET', '/api/playground/templates');
    expect(r.status).toBe(200);
    expect(r.headers.get('content-type')).toBe('application/json; charset=utf-8');
    expect(r.body).toEqual({
      templates: TEMPLATES.map((x) => ({
        id: x.id,
        name: x.name,
        description: x.description,
        category: x.category,
        difficulty: x.difficulty,
        params: x.params.map((p) => ({
          name: p.name,
          label: p.label,
          type: p.type,
          default: p.default,
          min: p.min,
          max: p.max,
          ...(p.step === undefined ? {} : { step: p.step }),
        })),
        code: x.code,
      })),
      success: true,
      errorCode: 0,
      errorMessage: null,
    });
  });

  it('every template and param has the spec shape and types', async () => {
    const t = await makeApp();
    const { templates } = (await webCall(t, 'GET', '/api/playground/templates')).body;
    expect(templates.length).toBeGreaterThan(0);
    expect(new Set(templates.map((x: any) => x.id)).size).toBe(templates.length);
    for (const x of templates) {
      expect(Object.keys(x)).toEqual(['id', 'name', 'description', 'category', 'difficulty', 'params', 'code']);
      for (const k of ['id', 'name', 'description', 'category', 'code']) expect(typeof x[k]).toBe('string');
      expect(['beginner', 'intermediate', 'advanced']).toContain(x.difficulty);
      expect(Array.isArray(x.params)).toBe(true);
      for (const p of x.params) {
        const keys = ['name', 'label', 'type', 'default', 'min', 'max'];
        expect(Object.keys(p)).toEqual('step' in p ? [...keys, 'step'] : keys);
        expect(['number', 'string', 'boolean']).toContain(p.type);
        expect(typeof p.default).toBe(p.type);
        for (const bound of [p.min, p.max]) expect(bound === null || typeof bound === 'number').toBe(true);
      }
    }
  });

  it('answers the same with a session cookie, also for a free user', async () => {
    const t = await makeApp();
    const u = await makeWebUser(t, { plan: 'free' });
    const cookie = await webLogin(t, u.email, u.password);
    const anon = await webCall(t, 'GET', '/api/playground/templates');
    const free = await webCall(t, 'GET', '/api/playground/templates', { cookie });
    expect(free.body).toEqual(anon.body);
  });

  it('other methods and unknown playground paths → HTTP 404', async () => {
    const t = await makeApp();
    for (const [method, path] of [
      ['POST', '/api/playground/templates'],
      ['GET', '/api/playground/nothing'],
    ]) {
      const r = await webCall(t, method, path);
      expect(r.status).toBe(404);
      expect(r.body).toEqual({ success: false, errorCode: 404, errorMessage: 'Not found' });
    }
  });
});
