import { DynamicModule, Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { createFileStorage, FILE_STORAGE } from '@app/platform';
import { ExportEntity } from './export.entity';
import { ExportWorker } from './export-worker';
import { EXPORTS_CONFIG, ExportsConfig } from './exports.config';
import { ExportsController } from './exports.controller';
import { ExportsRepository } from './exports.repository';
import { ExportsService } from './exports.service';

/** Background exports of leads: the NATS handlers, the job queue and the worker. */
@Module({})
export class ExportsModule {
  static register(config: ExportsConfig): DynamicModule {
    return {
      module: ExportsModule,
      imports: [TypeOrmModule.forFeature([ExportEntity])],
      controllers: [ExportsController],
      providers: [
        ExportsService,
        ExportsRepository,
        ExportWorker,
        { provide: EXPORTS_CONFIG, useValue: config },
        { provide: FILE_STORAGE, useFactory: () => createFileStorage() },
      ],
    };
  }
}
