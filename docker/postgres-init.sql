-- One database per service: no service reads another's tables. Runs once, when the data volume
-- is first initialised; the services also create their database at boot if it is missing.
CREATE DATABASE lim_gateway;
CREATE DATABASE lim_search;
CREATE DATABASE lim_crm;
CREATE DATABASE lim_sequences;
CREATE DATABASE lim_billing;
CREATE DATABASE lim_webhooks;
