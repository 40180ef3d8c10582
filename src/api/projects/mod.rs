//! `/api/projects`: create, read, update, delete and list projects
//! (`agent-extras.md` §5). Members are in `members`; what a project means
//! for threads (placing one, listing a project's) in `threads`.

pub mod members;
pub mod threads;

use actix_web::{HttpResponse, web};
use chrono::Utc;
use confer_actors::{OrgId, ProjectId};
use serde::{Deserialize, Serialize};

use super::extract::{JsonBody, Patch};
use super::{page_limit, parse_cursor, timestamp};
use crate::auth::{Caller, access};
use crate::error::ApiError;
use crate::projects::{self as rules, Member, Project, ProjectRole};
use crate::state::AppState;
use crate::store::projects::ProjectWrite;

const DEFAULT_PAGE: u32 = 50;
const MAX_PAGE: u32 = 100;

/// A project as every endpoint returns it.
#[derive(Serialize, utoipa::ToSchema)]
pub struct ProjectView {
    id: String,
    org_id: String,
    name: String,
    slug: Option<String>,
    description: Option<String>,
    created_by: String,
    /// The end user's role in it; null for admins and members.
    caller_role: Option<ProjectRole>,
    created_at: String,
    updated_at: String,
}

impl ProjectView {
    fn of(project: Project, caller_role: Option<ProjectRole>) -> Self {
        Self {
            id: project.id.to_string(),
            org_id: project.org_id.to_string(),
            name: project.name,
            slug: project.slug,
            description: project.description,
            created_by: project.created_by,
            caller_role,
            created_at: timestamp(project.created_at),
            updated_at: timestamp(project.updated_at),
        }
    }
}

/// A member as a create or an add names it.
#[derive(Clone, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct MemberInput {
    user_id: String,
    role: ProjectRole,
}

/// `POST /api/projects` body.
#[derive(Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct CreateProject {
    name: String,
    slug: Option<String>,
    description: Option<String>,
    /// Admins and members only: an end user creating a project is its
    /// sole first member, as owner.
    members: Option<Vec<MemberInput>>,
}

/// `PATCH /api/projects/{id}` body; `null` clears the slug or the
/// description.
#[derive(Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct UpdateProject {
    name: Option<String>,
    #[serde(default)]
    #[schema(value_type = Option<String>)]
    slug: Patch<String>,
    #[serde(default)]
    #[schema(value_type = Option<String>)]
    description: Patch<String>,
}

/// `GET /api/projects` query.
#[derive(Deserialize, utoipa::IntoParams)]
#[into_params(parameter_in = Query)]
pub struct ListQuery {
    /// `X-Next-Cursor` of the previous page.
    cursor: Option<String>,
    /// 1–100, 50 by default.
    limit: Option<u32>,
}

fn check_fields(project: &Project) -> Result<(), ApiError> {
    rules::check_name(&project.name)?;
    if let Some(slug) = &project.slug {
        rules::check_slug(slug)?;
    }
    if let Some(description) = &project.description {
        rules::check_description(description)?;
    }
    Ok(())
}

/// The store's refusals of a project write, as the API answers them.
fn refused<T, E: Into<ApiError>>(outcome: ProjectWrite<T, E>) -> Result<T, ApiError> {
    match outcome {
        ProjectWrite::Done(done) => Ok(done),
        ProjectWrite::SlugTaken => Err(ApiError::Conflict(
            "slug: another project of the org has it".into(),
        )),
        ProjectWrite::Full => Err(ApiError::Conflict(format!(
            "the org holds {} projects, or the project {} members: delete one first",
            rules::MAX_PROJECTS_PER_ORG,
            rules::MAX_MEMBERS
        ))),
        ProjectWrite::Gone => Err(ApiError::not_found("project")),
        ProjectWrite::Refused(error) => Err(error.into()),
    }
}

/// `GET /api/projects`: newest first; an end user's come from its own
/// index (the projects it is a member of).
#[utoipa::path(get, path = "/api/projects", tag = "projects", operation_id = "projects_list", security(("bearer" = [])), params(ListQuery), responses((status = 200, description = "The projects the caller may see, newest first; `X-Next-Cursor` when more follow", body = [ProjectView])))]
pub async fn list(
    state: web::Data<AppState>,
    caller: Caller,
    query: web::Query<ListQuery>,
) -> Result<HttpResponse, ApiError> {
    let before = parse_cursor(query.cursor.as_deref())?;
    let limit = page_limit(query.limit, DEFAULT_PAGE, MAX_PAGE);
    let org = caller.org_id;
    let user = (!caller.sees_whole_org()).then(|| caller.user_id());
    let page = state
        .store
        .projects()
        .projects_page(org, user, before, limit)
        .await?;
    let views: Vec<ProjectView> = page
        .items
        .into_iter()
        .map(|(project, role)| ProjectView::of(project, role))
        .collect();
    let mut response = HttpResponse::Ok();
    if let Some(next) = page.next_cursor {
        response.insert_header(("X-Next-Cursor", timestamp(next)));
    }
    Ok(response.json(views))
}

/// `POST /api/projects`: 201 with the project.
#[utoipa::path(post, path = "/api/projects", tag = "projects", operation_id = "projects_create", security(("bearer" = [])), request_body = CreateProject, responses((status = 201, description = "The project", body = ProjectView), (status = 409, description = "The slug is taken, or the org holds 10,000 projects", body = crate::error::ErrorBody<'static>)))]
pub async fn create(
    state: web::Data<AppState>,
    caller: Caller,
    body: JsonBody<CreateProject>,
) -> Result<HttpResponse, ApiError> {
    let body = body.into_inner();
    let now = Utc::now();
    let creator = caller.user_id();
    let project = Project {
        id: ProjectId::new(),
        org_id: caller.org_id,
        name: body.name.trim().to_owned(),
        slug: body.slug,
        description: body.description,
        created_by: creator.clone(),
        created_at: now,
        updated_at: now,
    };
    check_fields(&project)?;
    let member = |input: MemberInput| Member {
        user_id: input.user_id,
        role: input.role,
        added_by: creator.clone(),
        added_at: now,
    };
    let (members, caller_role) = if caller.sees_whole_org() {
        let members: Vec<Member> = body
            .members
            .unwrap_or_default()
            .into_iter()
            .map(member)
            .collect();
        for (i, m) in members.iter().enumerate() {
            rules::check_user_id(&format!("members[{i}].userId"), &m.user_id)?;
            if members[..i].iter().any(|o| o.user_id == m.user_id) {
                return Err(ApiError::invalid(
                    &format!("members[{i}].userId"),
                    "repeated",
                ));
            }
        }
        if members.len() > rules::MAX_MEMBERS {
            return Err(ApiError::invalid(
                "members",
                format!("at most {}", rules::MAX_MEMBERS),
            ));
        }
        (members, None)
    } else {
        if body.members.is_some() {
            return Err(ApiError::invalid(
                "members",
                "an end user creating a project is its owner; add members afterwards",
            ));
        }
        let owner = member(MemberInput {
            user_id: creator.clone(),
            role: ProjectRole::Owner,
        });
        (vec![owner], Some(ProjectRole::Owner))
    };
    let outcome = state
        .store
        .projects()
        .create_project(project, members)
        .await?;
    let project = refused(outcome)?;
    Ok(HttpResponse::Created().json(ProjectView::of(project, caller_role)))
}

/// `GET /api/projects/{id}`
#[utoipa::path(get, path = "/api/projects/{project_id}", tag = "projects", operation_id = "projects_get", security(("bearer" = [])), params(("project_id" = uuid::Uuid, Path, description = "The project's id")), responses((status = 200, description = "The project (an end user: one it is a member of)", body = ProjectView)))]
pub async fn get(
    state: web::Data<AppState>,
    caller: Caller,
    path: web::Path<ProjectId>,
) -> Result<HttpResponse, ApiError> {
    let (project, role) =
        access::project(&state, &caller, path.into_inner(), ProjectRole::Viewer).await?;
    Ok(HttpResponse::Ok().json(ProjectView::of(project, role)))
}

/// `PATCH /api/projects/{id}`: compare-and-swap; an end user must own it.
#[utoipa::path(patch, path = "/api/projects/{project_id}", tag = "projects", operation_id = "projects_update", security(("bearer" = [])), params(("project_id" = uuid::Uuid, Path, description = "The project's id")), request_body = UpdateProject, responses((status = 200, description = "The updated project", body = ProjectView), (status = 409, description = "The slug is taken", body = crate::error::ErrorBody<'static>)))]
pub async fn update(
    state: web::Data<AppState>,
    caller: Caller,
    path: web::Path<ProjectId>,
    body: JsonBody<UpdateProject>,
) -> Result<HttpResponse, ApiError> {
    let (project, role) =
        access::project(&state, &caller, path.into_inner(), ProjectRole::Owner).await?;
    let body = body.into_inner();
    let (org, id) = (project.org_id, project.id);
    let outcome = state
        .store
        .projects()
        .update_project(org, id, Box::new(move |project| body.apply(project)))
        .await?;
    Ok(HttpResponse::Ok().json(ProjectView::of(refused(outcome)?, role)))
}

impl UpdateProject {
    /// The project with the present fields changed, checked (422).
    fn apply(&self, mut project: Project) -> Result<Project, ApiError> {
        if let Some(name) = &self.name {
            project.name = name.trim().to_owned();
        }
        if let Some(slug) = self.slug.clone().into_change() {
            project.slug = slug;
        }
        if let Some(description) = self.description.clone().into_change() {
            project.description = description;
        }
        check_fields(&project)?;
        project.updated_at = Utc::now();
        Ok(project)
    }
}

/// `DELETE /api/projects/{id}`: its members go; its threads, agents and
/// runners stay, detached at once (rewritten in the background, resumed
/// after a restart).
#[utoipa::path(delete, path = "/api/projects/{project_id}", tag = "projects", operation_id = "projects_delete", security(("bearer" = [])), params(("project_id" = uuid::Uuid, Path, description = "The project's id")), responses((status = 200, description = "Deleted", body = super::Ok)))]
pub async fn delete(
    state: web::Data<AppState>,
    caller: Caller,
    path: web::Path<ProjectId>,
) -> Result<HttpResponse, ApiError> {
    let (project, _) =
        access::project(&state, &caller, path.into_inner(), ProjectRole::Owner).await?;
    let (org, id) = (project.org_id, project.id);
    if !state.store.projects().delete_project(org, id).await? {
        return Err(ApiError::not_found("project"));
    }
    Ok(HttpResponse::Ok().json(super::Ok { ok: true }))
}

/// 404 unless `project` is a project of `org`.
pub async fn require(
    state: &AppState,
    org: OrgId,
    project: Option<ProjectId>,
) -> Result<(), ApiError> {
    let Some(project) = project else {
        return Ok(());
    };
    match state.store.projects().project(org, project, None).await? {
        Some(_) => Ok(()),
        None => Err(ApiError::not_found("project")),
    }
}

/// [`require`] for a runner's `projectId`, kept as text by runners.md: a
/// value that is no project id is 422, an unknown project 404.
pub async fn require_named(
    state: &AppState,
    org: OrgId,
    project: Option<&str>,
) -> Result<(), ApiError> {
    let Some(project) = project else {
        return Ok(());
    };
    let id = project
        .parse::<ProjectId>()
        .map_err(|_| ApiError::invalid("projectId", "not a project id"))?;
    require(state, org, Some(id)).await
}
