import { Column, Entity, PrimaryColumn } from 'typeorm';

/**
 * The search rows of a resource, kept by a trigger in the writing transaction and list-partitioned by
 * `config` (one partition per language, and `values`). A language row holds the resource's `vector` in that
 * text-search configuration; the `values` row holds the values of every search path as native arrays
 * (`numeric[]` exact for 64-bit integers, `text[]`), NULL in the language rows. Copied from the resource for
 * filters, facets and sorts: project, `published`, key, creation time.
 */
@Entity({ name: 'resource_search' })
export class ResourceSearchEntity {
  @PrimaryColumn({ name: 'resource_id', type: 'uuid', primaryKeyConstraintName: 'resource_search_pkey' })
  resourceId: string;

  @PrimaryColumn({ type: 'text', primaryKeyConstraintName: 'resource_search_pkey' })
  config: string;

  @Column({ name: 'project_key', type: 'varchar', length: 36 })
  projectKey: string;

  @Column({ type: 'boolean' })
  published: boolean;

  @Column({ type: 'tsvector' })
  vector: string;

  @Column({ type: 'varchar', length: 256, nullable: true })
  key: string | null;

  @Column({ name: 'created_at', type: 'timestamptz', precision: 3 })
  createdAt: Date;

  @Column({ name: 'array_of_int_example', type: 'numeric', array: true, nullable: true })
  arrayOfIntExample: string[] | null;

  @Column({ name: 'array_of_unique_int_example', type: 'numeric', array: true, nullable: true })
  arrayOfUniqueIntExample: string[] | null;

  @Column({ name: 'array_of_twonumbers_example', type: 'numeric', array: true, nullable: true })
  arrayOfTwonumbersExample: string[] | null;

  @Column({ name: 'array_of_float_example', type: 'numeric', array: true, nullable: true })
  arrayOfFloatExample: string[] | null;

  @Column({ name: 'array_of_number_no_defaults_example', type: 'numeric', array: true, nullable: true })
  arrayOfNumberNoDefaultsExample: string[] | null;

  @Column({ name: 'array_of_string_example', type: 'text', array: true, nullable: true })
  arrayOfStringExample: string[] | null;

  @Column({ name: 'array_of_object_type_integer_example', type: 'numeric', array: true, nullable: true })
  arrayOfObjectTypeIntegerExample: string[] | null;

  @Column({ name: 'array_of_object_type_integer_example_int32', type: 'numeric', array: true, nullable: true })
  arrayOfObjectTypeIntegerExampleInt32: string[] | null;
}
