import { Lens, StageKind } from '@app/contracts';

export interface PipelineTemplate {
  name: string;
  lens: Lens | null;
  isDefault: boolean;
  stages: [name: string, kind: StageKind][];
}

/**
 * What every workspace starts with: a default pipeline where new leads land, and one template
 * per lens with the stages its deals go through. Closing stages come last.
 */
export const PIPELINE_TEMPLATES: PipelineTemplate[] = [
  {
    name: 'Sales pipeline',
    lens: null,
    isDefault: true,
    stages: [['New', 'open'], ['Contacted', 'open'], ['Qualified', 'open'], ['Meeting', 'open'], ['Proposal', 'open'], ['Won', 'won'], ['Lost', 'lost']],
  },
  {
    name: 'Leads outreach',
    lens: 'leads',
    isDefault: false,
    stages: [['New', 'open'], ['Contacted', 'open'], ['Replied', 'open'], ['Meeting booked', 'open'], ['Customer', 'won'], ['Not interested', 'lost']],
  },
  {
    name: 'Fundraising',
    lens: 'investors',
    isDefault: false,
    stages: [
      ['Researching', 'open'], ['Intro requested', 'open'], ['First meeting', 'open'], ['Due diligence', 'open'],
      ['Term sheet', 'open'], ['Committed', 'won'], ['Passed', 'lost'],
    ],
  },
  {
    name: 'Research collaborations',
    lens: 'researchers',
    isDefault: false,
    stages: [['Identified', 'open'], ['Contacted', 'open'], ['In conversation', 'open'], ['Collaborating', 'won'], ['Declined', 'lost']],
  },
  {
    name: 'Grant applications',
    lens: 'grants',
    isDefault: false,
    stages: [
      ['Identified', 'open'], ['Eligibility check', 'open'], ['Drafting', 'open'], ['Submitted', 'open'], ['Awarded', 'won'], ['Rejected', 'lost'],
    ],
  },
];
