"""The platform's business logic, shared by the API and the pages: accounts, benchmarks, uploads, the
scoring queue, oracle defences, publication and review, boards, annotation. Roles are checked here."""
