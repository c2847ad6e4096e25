"""The generic metric library every benchmark uses: each module is an ``omnieval.metrics`` entry point,
imported by the registry when a name it registers is looked up."""
