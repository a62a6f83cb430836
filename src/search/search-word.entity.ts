import { Entity, Index, PrimaryColumn } from 'typeorm';

/** Every word written in a project (lower-cased, unstemmed, without digits): fuzzy search's vocabulary. */
@Entity({ name: 'search_word' })
// Lookups by length and by trigram (pg_trgm's GIN), expression and operator-class indexes: in the migrations only.
@Index('search_word_length_idx', { synchronize: false })
@Index('search_word_other_length_idx', { synchronize: false })
@Index('search_word_trigram_idx', { synchronize: false })
export class SearchWordEntity {
  @PrimaryColumn({ name: 'project_key', type: 'varchar', length: 36, primaryKeyConstraintName: 'search_word_pkey' })
  projectKey: string;

  @PrimaryColumn({ type: 'varchar', length: 64, primaryKeyConstraintName: 'search_word_pkey' })
  word: string;
}
