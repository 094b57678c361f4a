"""Data files shipped with interlingua (the model table ``models.json``)."""
