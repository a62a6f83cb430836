import 'reflect-metadata';
import { Type } from 'class-transformer';
import { getMetadataStorage, IsInt, IsString, MaxLength, validateSync, ValidateNested } from 'class-validator';
import { memoizeValidationMetadata } from './metadata-cache.js';
import { validateBody } from './validation.pipe.js';

/** class-validator's metadata lookups, memoized by validation.pipe.ts when it loads. */

class Parent {
  @IsString()
  name: unknown;
}

class Child extends Parent {
  @IsInt()
  count: unknown;
}

class Holder {
  @ValidateNested()
  @Type(() => Child)
  child: unknown;
}

const storage = getMetadataStorage();
const propertiesOf = (target: Function, groups?: string[]) =>
  storage
    .getTargetValidationMetadatas(target, '', false, false, groups)
    .map((metadata) => `${metadata.propertyName}:${metadata.name ?? metadata.type}`)
    .sort();

describe('memoizeValidationMetadata', () => {
  it('is installed once on the storage the validators use', () => {
    const lookup = storage.getTargetValidationMetadatas;
    memoizeValidationMetadata(storage);
    expect(storage.getTargetValidationMetadatas).toBe(lookup);
  });

  it('answers the same rules again, own and inherited, the same array each time', () => {
    const first = storage.getTargetValidationMetadatas(Child, '', false, false);
    expect(propertiesOf(Child)).toEqual(['count:isInt', 'name:isString']);
    expect(storage.getTargetValidationMetadatas(Child, '', false, false)).toBe(first);
    expect(Object.isFrozen(first)).toBe(true);
    expect(storage.groupByPropertyName(first)).toBe(storage.groupByPropertyName(first));
    expect(Object.keys(storage.groupByPropertyName(first)).sort()).toEqual(['count', 'name']);
  });

  it('keeps answers for different options apart', () => {
    class Grouped {
      @IsInt({ groups: ['strict'] })
      @IsString()
      value: unknown;
    }
    expect(propertiesOf(Grouped, ['strict'])).toEqual(['value:isInt']);
    expect(propertiesOf(Grouped)).toEqual(['value:isInt', 'value:isString']);
    expect(storage.getTargetValidationMetadatas(Grouped, '', false, true).map((m) => m.name)).toEqual(['isString']);
  });

  it('forgets its answers when a rule is added, so a class sees rules its parent gains later', () => {
    expect(propertiesOf(Child)).toEqual(['count:isInt', 'name:isString']);
    expect(validateSync(Object.assign(new Child(), { name: 'long', count: 1 }))).toHaveLength(0);

    MaxLength(3)(Parent.prototype, 'name');

    expect(propertiesOf(Child)).toEqual(['count:isInt', 'name:isString', 'name:maxLength']);
    const errors = validateSync(Object.assign(new Child(), { name: 'long', count: 1 }));
    expect(errors.map((error) => Object.keys(error.constraints ?? {}))).toEqual([['maxLength']]);
  });

  it('validates nested bodies as before: unknown members, nested rules', () => {
    expect(validateBody(Holder, { child: { name: 'a', count: 1 } })).toBeInstanceOf(Holder);
    expect(() => validateBody(Holder, { child: { name: 'a', count: 'x' } })).toThrow('child.count');
    expect(() => validateBody(Holder, { child: { name: 'a', count: 1, extra: true } })).toThrow('child.extra');
  });
});
