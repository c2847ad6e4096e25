"""The platform's HTTP surface: the REST API, the server-rendered pages (with their templates, static files
and translations), error answers and the middleware. Routes call the services; they hold no business rules.
"""
