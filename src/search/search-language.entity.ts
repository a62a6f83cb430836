import { Entity, PrimaryColumn } from 'typeorm';

/** The text-search configurations resources are indexed in (`SEARCH_LANGUAGES`, applied at start-up). */
@Entity({ name: 'search_language' })
export class SearchLanguageEntity {
  @PrimaryColumn({ type: 'text', primaryKeyConstraintName: 'search_language_pkey' })
  config: string;
}
