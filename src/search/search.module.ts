import { Module } from '@nestjs/common';
import { SearchController } from './search.controller.js';
import { SearchLanguages } from './search-languages.js';
import { SearchRepository } from './search.repository.js';
import { SearchService } from './search.service.js';

@Module({
  controllers: [SearchController],
  providers: [SearchService, SearchRepository, SearchLanguages],
})
export class SearchModule {}
