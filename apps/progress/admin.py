"""Teachers manage badges here: change targets, disable one, or add a badge as a new row."""

from django.contrib import admin
from django.db.models import Q

from apps.classes import reach
from apps.progress.models import BadgeDefinition, EarnedBadge


class TeacherAdmin(admin.ModelAdmin):
    """Every teacher (staff) manages badges, without per-model permissions."""

    def has_module_permission(self, request, obj=None) -> bool:
        return request.user.is_active and request.user.is_staff

    has_view_permission = has_add_permission = has_module_permission
    has_change_permission = has_delete_permission = has_module_permission


@admin.register(BadgeDefinition)
class BadgeDefinitionAdmin(TeacherAdmin):
    list_display = ("icon", "name", "code", "category", "metric", "target", "next_level", "enabled")
    list_display_links = ("name",)
    list_editable = ("target", "enabled")
    list_filter = ("category", "enabled", "metric")
    search_fields = ("code", "name", "description")
    ordering = ("position", "code")

    def get_readonly_fields(self, request, obj=None):
        # The code is the badge's identity (earned badges, the API): fixed once created.
        return ("code",) if obj else ()


@admin.register(EarnedBadge)
class EarnedBadgeAdmin(TeacherAdmin):
    list_display = ("user", "badge", "earned_at")
    list_filter = ("badge",)
    search_fields = ("user__username", "badge__code")
    readonly_fields = ("user", "badge", "earned_at")

    def get_queryset(self, request):
        """A teacher's own badges and those of the students they teach (apps/classes/reach.py);
        the admin's, everyone's."""
        earned = super().get_queryset(request)
        if request.user.is_admin:
            return earned
        mine = Q(user=request.user) | Q(user__in=reach.students(request.user))
        return earned.filter(mine)

    def has_add_permission(self, request) -> bool:
        return False  # badges are earned, never handed out
