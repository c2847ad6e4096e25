"""The generic parser library every benchmark uses: each module is an ``omnieval.parsers`` entry point,
imported by the registry when a name it registers is looked up."""
