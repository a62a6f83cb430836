import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { MESSAGE_TYPES, messageTypeSql } from './message.catalogue.js';

/** The message types: the list the documentation gives, and how the statements that write messages name them. */
describe('the message types', () => {
  it('are the types the change log documents, in its order', () => {
    const page = readFileSync(join(process.cwd(), 'docs/change-log-and-subscriptions.md'), 'utf8');
    const list = /one \*\*message\*\* per change \(([^)]*)\)/.exec(page)?.[1] ?? '';
    expect(list.split(',').map((item) => item.trim().replace(/`/g, ''))).toEqual([...MESSAGE_TYPES]);
  });

  it('are SQL literals as they are: letters only', () => {
    for (const type of MESSAGE_TYPES) expect(messageTypeSql(type)).toBe(`'${type}'`);
    expect(MESSAGE_TYPES.every((type) => /^[A-Za-z]+$/.test(type))).toBe(true);
  });
});
