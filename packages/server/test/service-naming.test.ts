/**
 * The naming rule of services (docs/architecture.md › Names): a service is a class whose name ends
 * in `Service`, alone in `services/<name>.service.ts` where `<name>` is the class name before
 * `Service` in kebab-case; every other file in `services/` is a helper and exports no service.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';

const DIR = new URL('../src/services/', import.meta.url);
const files = readdirSync(DIR).filter((f) => f.endsWith('.ts'));
const exportedClasses = (file: string): string[] =>
  [...readFileSync(new URL(file, DIR), 'utf8').matchAll(/^export class (\w+)/gm)].map((m) => m[1] ?? '');
const kebab = (name: string): string => name.replace(/(?<!^)([A-Z])/g, '-$1').toLowerCase();

describe('the naming rule of services', () => {
  it('has service files to check', () => {
    expect(files.filter((f) => f.endsWith('.service.ts')).length).toBeGreaterThan(5);
  });

  it.each(files)('%s follows it', (file) => {
    const services = exportedClasses(file).filter((c) => c.endsWith('Service'));
    if (file.endsWith('.service.ts')) {
      expect(services.map((c) => `${kebab(c.slice(0, -'Service'.length))}.service.ts`)).toEqual([file]);
    } else {
      expect(services).toEqual([]);
    }
  });
});
