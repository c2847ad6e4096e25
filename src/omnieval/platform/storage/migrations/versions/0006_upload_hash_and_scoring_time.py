"""submissions: the upload's sha256 (an identical re-upload is warned about or refused) and scoring time"""

import sqlalchemy as sa
from alembic import op

revision = "0006"
down_revision = "0005"


def upgrade() -> None:
    with op.batch_alter_table("submissions", schema=None) as batch_op:
        batch_op.add_column(sa.Column("content_sha256", sa.String(length=64), nullable=True))
        batch_op.add_column(sa.Column("duplicate_of", sa.Integer(), nullable=True))
        batch_op.add_column(sa.Column("scoring_s", sa.Float(), nullable=True))
        batch_op.create_index("ix_submissions_content_sha256", ["content_sha256"], unique=False)


def downgrade() -> None:
    with op.batch_alter_table("submissions", schema=None) as batch_op:
        batch_op.drop_index("ix_submissions_content_sha256")
        batch_op.drop_column("scoring_s")
        batch_op.drop_column("duplicate_of")
        batch_op.drop_column("content_sha256")
