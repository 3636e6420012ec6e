import { Source } from './lead';

export interface Company {
  id: string;
  object: 'company';
  name: string;
  domain: string | null;
  industry: string | null;
  size: string | null;
  country: string | null;
  city: string | null;
  description: string | null;
  lead_count: number;
  sources: Source[];
  created_at: string;
  updated_at: string;
}
